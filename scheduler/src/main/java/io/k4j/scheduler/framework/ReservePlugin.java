package io.k4j.scheduler.framework;

/** Claims resources for the pod on the chosen node before binding; undone by {@link #unreserve} on failure. */
public interface ReservePlugin extends Plugin {
    Status reserve(CycleState state, PodInfo pod, String nodeName);

    /** Undoes {@link #reserve}; must be idempotent and must not fail. */
    void unreserve(CycleState state, PodInfo pod, String nodeName);
}
