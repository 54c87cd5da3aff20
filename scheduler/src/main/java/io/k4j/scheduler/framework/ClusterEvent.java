package io.k4j.scheduler.framework;

import static java.util.Objects.requireNonNull;

/**
 * A change in the cluster that may make unschedulable pods schedulable: a resource and a bit set of
 * {@link ActionType}s. Plugins register the events their rejections can be resolved by; the queue moves a pod back
 * when an event matches one registered by a plugin that rejected it.
 *
 * @param resource what changed
 * @param actions bits of {@link ActionType}
 * @param label a short name for logs and metrics, for example {@code NodeAdd}
 */
public record ClusterEvent(EventResource resource, int actions, String label) {
    public static final ClusterEvent NODE_ADD = new ClusterEvent(EventResource.NODE, ActionType.ADD, "NodeAdd");
    public static final ClusterEvent ASSIGNED_POD_ADD = new ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ADD, "AssignedPodAdd");
    public static final ClusterEvent ASSIGNED_POD_DELETE = new ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE, "AssignedPodDelete");
    public static final ClusterEvent UNSCHEDULABLE_TIMEOUT = new ClusterEvent(EventResource.WILDCARD, ActionType.ALL, "UnschedulableTimeout");
    public static final ClusterEvent FORCE_ACTIVATE = new ClusterEvent(EventResource.WILDCARD, ActionType.ALL, "ForceActivate");

    public ClusterEvent {
        requireNonNull(resource, "resource is null");
        requireNonNull(label, "label is null");
    }

    public static ClusterEvent of(EventResource resource, int actions) {
        return new ClusterEvent(resource, actions, resource + "/" + actions);
    }

    /** Whether this registered interest covers the {@code incoming} event. */
    public boolean matches(ClusterEvent incoming) {
        boolean resourceMatches = resource == EventResource.WILDCARD || incoming.resource == EventResource.WILDCARD || resource == incoming.resource;
        return resourceMatches && (actions & incoming.actions) != 0;
    }

    public boolean isWildcard() {
        return resource == EventResource.WILDCARD && actions == ActionType.ALL;
    }
}
