package io.k4j.controllerkit.workqueue;

import java.time.Duration;

/**
 * Decides how long an item waits before it is retried, as client-go's {@code workqueue.RateLimiter}.
 * Implementations are thread-safe.
 */
public interface RateLimiter<T> {
    /** How long {@code item} should wait now; each call counts as one more failure of it. */
    Duration when(T item);

    /** Clears what is remembered about {@code item} (it succeeded). */
    void forget(T item);

    /** How many times {@code item} has been retried since it was last forgotten. */
    int numRequeues(T item);
}
