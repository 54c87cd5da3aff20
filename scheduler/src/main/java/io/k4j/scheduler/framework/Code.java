package io.k4j.scheduler.framework;

/** The outcome class of a plugin call, as upstream's status codes. */
public enum Code {
    /** The plugin ran and found nothing against the pod. */
    SUCCESS,
    /** An internal failure: the pod is retried after backoff. */
    ERROR,
    /** The node does not fit now, but preemption or a cluster change may help. */
    UNSCHEDULABLE,
    /** The node does not fit and preemption cannot help (for example an untolerated taint). */
    UNSCHEDULABLE_AND_UNRESOLVABLE,
    /** A permit plugin asks the binding cycle to wait. */
    WAIT,
    /** The plugin does not apply to this pod; later calls to it in this cycle are skipped. */
    SKIP,
    /** The pod waits for something outside the scheduler; no backoff applies. */
    PENDING
}
