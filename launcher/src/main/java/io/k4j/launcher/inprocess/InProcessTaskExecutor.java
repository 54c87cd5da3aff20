package io.k4j.launcher.inprocess;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The task executor of a fabric8 client served in process: a pool, except while a watch message is being handed over.
 *
 * <p>fabric8 takes each watch message in two tasks on the watch's serial queue, each run on the client's pool: one
 * decodes the message, the next gives the event to the watcher (for an informer: the store update, and a third task that
 * runs the handlers). An in-process watch already delivers its messages on a thread of its own, one at a time
 * ({@link WatchMessages}), so there the first two tasks run on that thread. That spares two thread hand-offs per event
 * and watch, and the contention between the delivering thread and a pool thread on the watch's queue, which took a
 * twentieth of the server's CPU under a stream of pod creates. Tasks nested deeper (an informer's handlers) still go to
 * the pool, so a slow handler holds back its informer's queue, never the watch.
 *
 * <p>The pool starts a virtual thread per task, not a platform thread per burst as fabric8's own cached pool: waking a
 * parked platform thread is a kernel context switch, and with one task per event and informer those were most of the
 * server's context switches (about 8 per pod create, 1 with this executor). Thread-safe.
 */
public final class InProcessTaskExecutor implements Executor {
    /** The decoding task, and the hand-over to the watcher that it queues. */
    private static final int INLINE_DEPTH = 2;
    /** Not handing over a message (the depth a thread that delivers watch messages keeps between them). */
    private static final int IDLE = -1;
    /**
     * On a thread that delivers watch messages: while it hands one over, how deep the tasks run here nest, else
     * {@link #IDLE}. Set once per such thread, since a message is handed over per event and watch. Unset elsewhere.
     */
    private static final ThreadLocal<int[]> HANDING_OVER = new ThreadLocal<>();

    private final ExecutorService pool;

    private InProcessTaskExecutor(ExecutorService pool) {
        this.pool = requireNonNull(pool, "pool is null");
    }

    /** For {@code KubernetesClientBuilder.withTaskExecutorSupplier}: one executor per client, its pool shut down with the client. */
    public static KubernetesClientBuilder.ExecutorSupplier supplier() {
        return new KubernetesClientBuilder.ExecutorSupplier() {
            @Override
            public Executor get() {
                return new InProcessTaskExecutor(Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("in-process-client-task-", 0).factory()));
            }

            @Override
            public void onClose(Executor executor) {
                if (executor instanceof InProcessTaskExecutor tasks) {
                    tasks.pool.shutdownNow();
                }
            }
        };
    }

    /** Marks the calling thread as handing over one watch message until {@link #endHandOver}; calls do not nest. */
    static void beginHandOver() {
        int[] depth = HANDING_OVER.get();
        if (depth == null) {
            HANDING_OVER.set(new int[] {0});
        } else {
            depth[0] = 0;
        }
    }

    static void endHandOver() {
        int[] depth = HANDING_OVER.get();
        if (depth != null) {
            depth[0] = IDLE;
        }
    }

    @Override
    public void execute(Runnable task) {
        int[] depth = HANDING_OVER.get();
        if (depth == null || depth[0] == IDLE || depth[0] >= INLINE_DEPTH) {
            pool.execute(task);
            return;
        }
        depth[0]++;
        try {
            task.run();
        } finally {
            depth[0]--;
        }
    }
}
