package io.k4j.scheduler.framework;

/** The kind of object a {@link ClusterEvent} is about. */
public enum EventResource {
    /** A pod bound to a node (or assumed), which changes what other pods see. */
    ASSIGNED_POD,
    /** The unscheduled pod itself, when the user changes it. */
    UNSCHEDULED_POD,
    NODE,
    POD_DISRUPTION_BUDGET,
    /** Matches every resource. */
    WILDCARD
}
