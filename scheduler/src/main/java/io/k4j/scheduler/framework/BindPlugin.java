package io.k4j.scheduler.framework;

/** Binds a pod to a node. The first binder that does not return {@link Status#SKIP} decides. */
public interface BindPlugin extends Plugin {
    Status bind(CycleState state, PodInfo pod, String nodeName);
}
