package io.k4j.controllerkit.workqueue;

/** Brings the world in line with one object's desired state: upstream's {@code syncHandler(key)}. */
@FunctionalInterface
public interface SyncHandler<T> {
    /**
     * Reconciles {@code key}. Returning normally means done (the key's backoff is forgotten); throwing requeues the
     * key with rate-limited backoff, so a failing object never stalls the others.
     */
    void sync(T key) throws Exception;
}
