package io.k4j.controllerkit.workqueue;

import static java.util.Objects.requireNonNull;

/**
 * A controller's workers over its one queue: started once with the controller, and on close stopped, or, when they
 * never started, the queue shut down so that nothing waits on it. Thread-safe.
 */
public final class QueueWorkers<T> implements AutoCloseable {
    private final WorkQueue<T> queue;
    private final SyncHandler<T> handler;
    private Workers workers;

    public QueueWorkers(WorkQueue<T> queue, SyncHandler<T> handler) {
        this.queue = requireNonNull(queue, "queue is null");
        this.handler = requireNonNull(handler, "handler is null");
    }

    public synchronized void start(int count) {
        workers = Workers.start(queue, count, handler);
    }

    @Override
    public synchronized void close() {
        if (workers != null) {
            workers.close();
        } else {
            queue.shutDown();
        }
    }
}
