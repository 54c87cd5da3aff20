package io.k4j.scheduler.framework;

/** Approves, rejects or delays the binding of a pod to its chosen node (gang scheduling and the like). */
public interface PermitPlugin extends Plugin {
    PermitResult permit(CycleState state, PodInfo pod, String nodeName);
}
