package io.k4j.scheduler.framework;

/** Decides whether a pod can run on one node. Called in parallel over nodes; must not write {@link CycleState}. */
public interface FilterPlugin extends Plugin {
    Status filter(CycleState state, PodInfo pod, NodeInfo nodeInfo);
}
