package io.k4j.controllerkit.workqueue;

import java.time.Duration;
import java.util.Optional;

/**
 * A {@link SyncHandler} that may ask to see its key again after a delay, as upstream controllers do with
 * {@code queue.AddAfter(key, requeueAfter)} when something becomes due later (a schedule, a deadline, a TTL, a pod
 * becoming available).
 */
@FunctionalInterface
public interface RequeueAfterSyncHandler<T> {
    /**
     * Reconciles {@code key} and returns when it is due again, if at all. Returning normally means done (the key's
     * backoff is forgotten); throwing requeues the key with rate-limited backoff.
     */
    Optional<Duration> sync(T key) throws Exception;
}
