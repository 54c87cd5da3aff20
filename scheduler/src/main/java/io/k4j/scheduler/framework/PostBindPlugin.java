package io.k4j.scheduler.framework;

/** Informational hook after a successful bind. */
public interface PostBindPlugin extends Plugin {
    void postBind(CycleState state, PodInfo pod, String nodeName);
}
