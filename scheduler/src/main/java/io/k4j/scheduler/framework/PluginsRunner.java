package io.k4j.scheduler.framework;

/** Lets a plugin (preemption) run a profile's filters against what-if node states. */
public interface PluginsRunner {
    Status runFilterPlugins(CycleState state, PodInfo pod, NodeInfo nodeInfo);

    /** Runs filters as the scheduling cycle does, accounting for pods nominated to the node. */
    Status runFilterPluginsWithNominatedPods(CycleState state, PodInfo pod, NodeInfo nodeInfo);

    Status runPreFilterExtensionAddPod(CycleState state, PodInfo podToSchedule, PodInfo podToAdd, NodeInfo nodeInfo);

    Status runPreFilterExtensionRemovePod(CycleState state, PodInfo podToSchedule, PodInfo podToRemove, NodeInfo nodeInfo);
}
