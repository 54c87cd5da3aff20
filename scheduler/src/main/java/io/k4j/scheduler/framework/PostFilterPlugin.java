package io.k4j.scheduler.framework;

/** Runs when no node fits the pod, to make one fit (preemption). */
public interface PostFilterPlugin extends Plugin {
    PostFilterResult postFilter(CycleState state, PodInfo pod, NodeToStatus filteredNodeStatuses);
}
