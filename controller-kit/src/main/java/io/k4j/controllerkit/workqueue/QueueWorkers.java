package io.k4j.controllerkit.workqueue;

import static java.util.Objects.requireNonNull;

/**
 * A controller's workers over its one queue: started once with the controller (a second start is ignored), and on
 * close stopped, or, when they never started, the queue shut down so that nothing waits on it. Thread-safe.
 */
public final class QueueWorkers<T> implements AutoCloseable {
    private final WorkQueue<T> queue;
    private final SyncHandler<T> handler;
    private Workers workers;

    public QueueWorkers(WorkQueue<T> queue, SyncHandler<T> handler) {
        this.queue = requireNonNull(queue, "queue is null");
        this.handler = requireNonNull(handler, "handler is null");
    }

    /** Workers whose sync may return a delay after which its key is queued again. */
    public static <T> QueueWorkers<T> requeuingAfter(WorkQueue<T> queue, RequeueAfterSyncHandler<T> handler) {
        requireNonNull(queue, "queue is null");
        requireNonNull(handler, "handler is null");
        return new QueueWorkers<>(queue, key -> handler.sync(key).ifPresent(delay -> queue.addAfter(key, delay)));
    }

    /** Starts {@code count} workers unless they already run. */
    public synchronized void start(int count) {
        if (workers == null) {
            workers = Workers.start(queue, count, handler);
        }
    }

    @Override
    public void close() {
        Workers running;
        synchronized (this) {
            running = workers;
        }
        // Outside the lock: stopping waits up to seconds for the keys in hand.
        if (running != null) {
            running.close();
        } else {
            queue.shutDown();
        }
    }
}
