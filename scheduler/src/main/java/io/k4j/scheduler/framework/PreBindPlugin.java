package io.k4j.scheduler.framework;

/** Prepares the node for the pod before binding (for example provisions volumes). Runs in the binding cycle. */
public interface PreBindPlugin extends Plugin {
    Status preBind(CycleState state, PodInfo pod, String nodeName);
}
