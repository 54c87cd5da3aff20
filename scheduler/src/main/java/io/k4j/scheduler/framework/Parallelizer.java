package io.k4j.scheduler.framework;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;

/**
 * Runs an index loop over a shared pool in chunks, as upstream's {@code parallelize.Parallelizer}. Small loops run on
 * the calling thread, where the handoff would cost more than the work. Thread-safe.
 */
public final class Parallelizer {
    private static final int MINIMUM_PIECES_FOR_PARALLELISM = 64;

    private final ForkJoinPool pool;
    private final int parallelism;

    public Parallelizer(int parallelism) {
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism must be positive: " + parallelism);
        }
        this.parallelism = parallelism;
        this.pool = parallelism == 1 ? null : new ForkJoinPool(parallelism);
    }

    public int parallelism() {
        return parallelism;
    }

    /** Calls {@code work} for every index in [0, pieces); returns when all calls returned. */
    public void until(int pieces, IntConsumer work) {
        until(pieces, work, () -> false);
    }

    /**
     * Calls {@code work} for the indexes in [0, pieces) until {@code done} holds, as upstream cancels the loop's
     * context: {@code done} is asked before each chunk, so indexes after it are not even visited (the filter loop
     * stops once it found enough feasible nodes, out of thousands). Returns when all calls returned.
     *
     * @return how many indexes, from 0, were handed out; indexes at or past it were not visited
     */
    public int until(int pieces, IntConsumer work, BooleanSupplier done) {
        if (pool == null || pieces < MINIMUM_PIECES_FOR_PARALLELISM) {
            int i = 0;
            for (; i < pieces && !done.getAsBoolean(); i++) {
                work.accept(i);
            }
            return i;
        }
        int chunk = Math.max(1, (int) Math.sqrt(pieces));
        AtomicInteger next = new AtomicInteger();
        Runnable worker = () -> {
            int start;
            while (!done.getAsBoolean() && (start = next.getAndAdd(chunk)) < pieces) {
                int end = Math.min(pieces, start + chunk);
                for (int i = start; i < end; i++) {
                    work.accept(i);
                }
            }
        };
        Helper[] helpers = new Helper[parallelism - 1];
        for (int i = 0; i < helpers.length; i++) {
            helpers[i] = new Helper(worker);
            helpers[i].task = pool.submit(helpers[i]);
        }
        worker.run();
        for (Helper helper : helpers) {
            helper.awaitUnlessAbandoned();
        }
        return Math.min(pieces, next.get());
    }

    /**
     * A pool thread's share of one loop. The calling thread works too, and a loop of a few dozen microseconds is often
     * over before the pool thread has woken: the caller then abandons the helper instead of sleeping until it has
     * started and found nothing left, which cost each scheduled pod two more thread wake-ups.
     */
    private static final class Helper implements Runnable {
        private final Runnable worker;
        private final AtomicBoolean claimed = new AtomicBoolean();
        private ForkJoinTask<?> task;

        Helper(Runnable worker) {
            this.worker = worker;
        }

        @Override
        public void run() {
            if (claimed.compareAndSet(false, true)) {
                worker.run();
            }
        }

        /** Returns once the helper's work is done, or at once if it had not started (it then never will). */
        void awaitUnlessAbandoned() {
            if (!claimed.compareAndSet(false, true)) {
                task.join();
            }
        }
    }

    public void shutdown() {
        if (pool != null) {
            pool.shutdownNow();
        }
    }
}
