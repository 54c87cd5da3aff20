package io.k4j.apiserver.registry.groups;

import static java.util.Objects.requireNonNull;

import io.k4j.api.resource.BuiltinResources;
import io.k4j.api.resource.GroupVersionResource;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.apps.controllerrevision.ControllerRevisionStrategy;
import io.k4j.apiserver.registry.apps.daemonset.DaemonSetStrategy;
import io.k4j.apiserver.registry.apps.deployment.DeploymentStrategy;
import io.k4j.apiserver.registry.apps.replicaset.ReplicaSetStrategy;
import io.k4j.apiserver.registry.apps.statefulset.StatefulSetStrategy;
import io.k4j.apiserver.registry.batch.cronjob.CronJobStrategy;
import io.k4j.apiserver.registry.batch.job.JobStrategy;
import io.k4j.apiserver.registry.coordination.lease.LeaseStrategy;
import io.k4j.apiserver.registry.discovery.endpointslice.EndpointSliceStrategy;
import io.k4j.apiserver.registry.events.event.EventConversion;
import io.k4j.apiserver.registry.events.event.EventStrategy;
import io.k4j.apiserver.registry.generic.ResourceDefinition;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.StatusStrategy;
import io.k4j.apiserver.registry.policy.poddisruptionbudget.PodDisruptionBudgetStrategy;
import io.k4j.apiserver.registry.rbac.clusterrole.ClusterRoleStrategy;
import io.k4j.apiserver.registry.rbac.clusterrolebinding.ClusterRoleBindingStrategy;
import io.k4j.apiserver.registry.rbac.role.RoleStrategy;
import io.k4j.apiserver.registry.rbac.rolebinding.RoleBindingStrategy;
import io.k4j.apiserver.registry.scale.ScaleSubresource;
import io.k4j.apiserver.registry.scheduling.priorityclass.PriorityClassStrategy;
import io.k4j.apiserver.registry.storage.storageclass.StorageClassStrategy;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Builds how the resources of the apps, batch, coordination.k8s.io, discovery.k8s.io, events.k8s.io,
 * rbac.authorization.k8s.io, policy, scheduling.k8s.io and storage.k8s.io groups are served: each resource's
 * strategy, its status strategy, its scale subresource and, for events.k8s.io, the conversion to the core
 * events storage. The launcher registers the result with the generic store. Immutable and thread-safe.
 */
public final class GroupResources {
    private final Map<GroupVersionResource, ResourceDefinition> definitions;

    /**
     * @param clock the time table cells (ages, durations) are computed against
     * @param podTemplates the core rules for embedded pod templates
     */
    public GroupResources(InstantSource clock, PodTemplateRules podTemplates) {
        this(clock, podTemplates, io.k4j.apiserver.registry.core.event.EventStrategy.DEFAULT_TIME_TO_LIVE);
    }

    /**
     * @param clock the time table cells (ages, durations) are computed against
     * @param podTemplates the core rules for embedded pod templates
     * @param eventTimeToLive how long an event lives after its last write ({@code --event-ttl})
     */
    public GroupResources(InstantSource clock, PodTemplateRules podTemplates, Duration eventTimeToLive) {
        requireNonNull(clock, "clock is null");
        requireNonNull(eventTimeToLive, "eventTimeToLive is null");
        requireNonNull(podTemplates, "podTemplates is null");
        Ages ages = new Ages(clock);
        Map<GroupVersionResource, ResourceDefinition> built = new LinkedHashMap<>();

        DeploymentStrategy deployments = new DeploymentStrategy(type("apps", "deployments"), podTemplates, ages);
        built.put(deployments.type().gvr(), scalable(deployments, new StatusStrategy(deployments, DeploymentStrategy::validateStatusUpdate, true), clock));
        ReplicaSetStrategy replicaSets = new ReplicaSetStrategy(type("apps", "replicasets"), podTemplates, ages);
        built.put(replicaSets.type().gvr(), scalable(replicaSets, new StatusStrategy(replicaSets, ReplicaSetStrategy::validateStatusUpdate, true), clock));
        StatefulSetStrategy statefulSets = new StatefulSetStrategy(type("apps", "statefulsets"), podTemplates, ages);
        built.put(statefulSets.type().gvr(), scalable(statefulSets, new StatusStrategy(statefulSets, StatefulSetStrategy::validateStatusUpdate, true), clock));
        DaemonSetStrategy daemonSets = new DaemonSetStrategy(type("apps", "daemonsets"), podTemplates, ages);
        built.put(daemonSets.type().gvr(), ResourceDefinition.withStatus(daemonSets, new StatusStrategy(daemonSets, DaemonSetStrategy::validateStatusUpdate, true)));
        add(built, new ControllerRevisionStrategy(type("apps", "controllerrevisions"), ages));

        JobStrategy jobs = new JobStrategy(type("batch", "jobs"), podTemplates, ages);
        built.put(jobs.type().gvr(), ResourceDefinition.withStatus(jobs, new StatusStrategy(jobs, JobStrategy::validateStatusUpdate, false)));
        CronJobStrategy cronJobs = new CronJobStrategy(type("batch", "cronjobs"), podTemplates, ages);
        built.put(cronJobs.type().gvr(), ResourceDefinition.withStatus(cronJobs, new StatusStrategy(cronJobs, (newObject, oldObject) -> new FieldErrors(), false)));

        add(built, new LeaseStrategy(type("coordination.k8s.io", "leases"), ages));
        add(built, new EndpointSliceStrategy(type("discovery.k8s.io", "endpointslices"), ages));
        EventStrategy events = new EventStrategy(type("events.k8s.io", "events"), ages, eventTimeToLive);
        built.put(events.type().gvr(), new ResourceDefinition(events, Map.of(), List.of(), Optional.of(new EventConversion())));

        add(built, new RoleStrategy(type("rbac.authorization.k8s.io", "roles")));
        add(built, new RoleBindingStrategy(type("rbac.authorization.k8s.io", "rolebindings"), ages));
        add(built, new ClusterRoleStrategy(type("rbac.authorization.k8s.io", "clusterroles")));
        add(built, new ClusterRoleBindingStrategy(type("rbac.authorization.k8s.io", "clusterrolebindings"), ages));

        PodDisruptionBudgetStrategy budgets = new PodDisruptionBudgetStrategy(type("policy", "poddisruptionbudgets"), ages);
        built.put(budgets.type().gvr(), ResourceDefinition.withStatus(budgets, new StatusStrategy(budgets, PodDisruptionBudgetStrategy::validateStatusUpdate, false)));
        add(built, new PriorityClassStrategy(type("scheduling.k8s.io", "priorityclasses"), ages));
        add(built, new StorageClassStrategy(type("storage.k8s.io", "storageclasses"), ages));
        this.definitions = Collections.unmodifiableMap(built);
    }

    /** With the core group's pod template rules. */
    public static GroupResources withCorePodRules(InstantSource clock) {
        return new GroupResources(clock, new CorePodTemplateRules());
    }

    /** The definitions, to hand to the server configuration next to the core group's. */
    public List<ResourceDefinition> definitions() {
        return List.copyOf(definitions.values());
    }

    /** The definition of one served resource of these groups. */
    public ResourceDefinition definition(GroupVersionResource resource) {
        ResourceDefinition definition = definitions.get(resource);
        if (definition == null) {
            throw new IllegalArgumentException("not served by these groups: " + resource);
        }
        return definition;
    }

    private static ResourceDefinition scalable(ResourceStrategy strategy, ResourceStrategy statusStrategy, InstantSource clock) {
        return new ResourceDefinition(strategy, Map.of("status", statusStrategy),
                List.of(new ScaleSubresource(ScaleSubresource.SelectorForm.LABEL_SELECTOR, clock)), Optional.empty());
    }

    private static void add(Map<GroupVersionResource, ResourceDefinition> built, ResourceStrategy strategy) {
        built.put(strategy.type().gvr(), ResourceDefinition.of(strategy));
    }

    private static ResourceType type(String group, String plural) {
        GroupVersionResource resource = new GroupVersionResource(group, "v1", plural);
        return BuiltinResources.byResource(resource).orElseThrow(() -> new IllegalStateException("not in the catalogue: " + resource));
    }
}
