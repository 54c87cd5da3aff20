package io.k4j.scheduler.framework;

/** Orders the active queue. Exactly one per profile; all profiles must use the same one. */
public interface QueueSortPlugin extends Plugin {
    /** Negative when {@code first} should be scheduled before {@code second}. */
    int compare(QueuedPodInfo first, QueuedPodInfo second);
}
