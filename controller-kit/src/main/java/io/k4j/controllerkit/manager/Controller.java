package io.k4j.controllerkit.manager;

/**
 * A control loop. It registers its informers and handlers when constructed, and {@link #start} runs its workers once
 * the caches have synced (upstream's {@code Run(ctx, workers)}). Implementations are thread-safe.
 */
public interface Controller extends AutoCloseable {
    /** Starts {@code workers} worker threads; returns at once. */
    void start(int workers);

    /** Stops the workers and releases what the controller holds; never throws. */
    @Override
    void close();
}
