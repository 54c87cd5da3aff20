package io.k4j.controllerkit.workqueue;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Worker threads that drain a {@link WorkQueue} into a {@link SyncHandler}, as upstream's
 * {@code processNextWorkItem} loop: success forgets the key, an exception requeues it rate-limited. Stops when the
 * queue shuts down. Thread-safe.
 */
public final class Workers implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger("controller");

    private final WorkQueue<?> queue;
    private final List<Thread> threads;

    private Workers(WorkQueue<?> queue, List<Thread> threads) {
        this.queue = queue;
        this.threads = List.copyOf(threads);
    }

    /** Starts {@code count} workers named after the queue. */
    public static <T> Workers start(WorkQueue<T> queue, int count, SyncHandler<T> handler) {
        requireNonNull(queue, "queue is null");
        requireNonNull(handler, "handler is null");
        if (count < 1) {
            throw new IllegalArgumentException("need at least one worker, got " + count);
        }
        List<Thread> threads = new ArrayList<>();
        for (int index = 0; index < count; index++) {
            threads.add(Thread.ofPlatform().daemon().name(queue.name() + "-worker-" + index).start(() -> runWorker(queue, handler)));
        }
        return new Workers(queue, threads);
    }

    private static <T> void runWorker(WorkQueue<T> queue, SyncHandler<T> handler) {
        try {
            while (processNextWorkItem(queue, handler)) {
                // keep going until the queue shuts down
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Processes one key; false once the queue is shut down. Visible for tests that drive a queue by hand. */
    public static <T> boolean processNextWorkItem(WorkQueue<T> queue, SyncHandler<T> handler) throws InterruptedException {
        Optional<T> next = queue.get();
        if (next.isEmpty()) {
            return false;
        }
        T key = next.get();
        try {
            handler.sync(key);
            queue.forget(key);
        } catch (InterruptedException e) {
            queue.addRateLimited(key);
            throw e;
        } catch (Exception | LinkageError | AssertionError e) {
            LOG.warn("{}: error syncing {} (retry {}): {}", queue.name(), key, queue.numRequeues(key) + 1, describe(e));
            LOG.debug("{}: error syncing {}", queue.name(), key, e);
            queue.addRateLimited(key);
        } finally {
            queue.done(key);
        }
        return true;
    }

    private static String describe(Throwable error) {
        String message = error.getMessage();
        return message == null ? error.getClass().getSimpleName() : message;
    }

    /** Shuts the queue down and waits briefly for workers to finish the key in hand. */
    @Override
    public void close() {
        queue.shutDown();
        for (Thread thread : threads) {
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
