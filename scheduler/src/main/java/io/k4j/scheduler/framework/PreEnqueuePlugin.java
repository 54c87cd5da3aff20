package io.k4j.scheduler.framework;

/** Decides whether a pod may enter the active queue at all (for example scheduling gates). */
public interface PreEnqueuePlugin extends Plugin {
    /** Success lets the pod in; anything else keeps it parked until the pod changes. */
    Status preEnqueue(PodInfo pod);
}
