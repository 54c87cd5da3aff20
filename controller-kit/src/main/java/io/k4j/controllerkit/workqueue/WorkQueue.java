package io.k4j.controllerkit.workqueue;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A queue of keys with client-go's workqueue guarantees, which every control loop relies on:
 * <ul>
 *   <li>an item queued several times before a worker takes it is processed once (dirty set);</li>
 *   <li>an item is never processed by two workers at once: adding it while it is processed queues it again only
 *       after {@link #done} (processing set);</li>
 *   <li>{@link #addAfter} delays an item, keeping only the earliest pending delay per item;</li>
 *   <li>{@link #addRateLimited} delays by a {@link RateLimiter}, reset by {@link #forget}.</li>
 * </ul>
 * Thread-safe.
 */
public final class WorkQueue<T> implements AutoCloseable {
    private final String name;
    private final RateLimiter<T> rateLimiter;
    private final ArrayDeque<T> queue = new ArrayDeque<>();
    private final Set<T> dirty = new HashSet<>();
    private final Set<T> processing = new HashSet<>();
    private final Map<T, Long> waitingUntilNanos = new HashMap<>();
    private final ScheduledExecutorService delays;
    private boolean shuttingDown;

    public WorkQueue(String name, RateLimiter<T> rateLimiter) {
        this.name = requireNonNull(name, "name is null");
        this.rateLimiter = requireNonNull(rateLimiter, "rateLimiter is null");
        this.delays = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("workqueue-" + name + "-delays").factory());
    }

    /** A queue with client-go's default controller rate limiter. */
    public static <T> WorkQueue<T> withDefaultRateLimiter(String name) {
        return new WorkQueue<>(name, MaxOfRateLimiter.defaultControllerRateLimiter());
    }

    public String name() {
        return name;
    }

    /** Queues {@code item} unless it is already waiting to be processed. */
    public synchronized void add(T item) {
        requireNonNull(item, "item is null");
        if (shuttingDown || !dirty.add(item)) {
            return;
        }
        if (!processing.contains(item)) {
            queue.addLast(item);
            notify();
        }
    }

    /** Queues {@code item} once {@code delay} has passed; an earlier pending delay for the same item wins. */
    public void addAfter(T item, Duration delay) {
        requireNonNull(item, "item is null");
        if (delay.isNegative() || delay.isZero()) {
            add(item);
            return;
        }
        long readyAt = System.nanoTime() + delay.toNanos();
        synchronized (this) {
            if (shuttingDown) {
                return;
            }
            Long pending = waitingUntilNanos.get(item);
            if (pending != null && pending - readyAt <= 0) {
                return;
            }
            waitingUntilNanos.put(item, readyAt);
        }
        delays.schedule(() -> fire(item, readyAt), delay.toNanos(), TimeUnit.NANOSECONDS);
    }

    private void fire(T item, long readyAt) {
        synchronized (this) {
            Long pending = waitingUntilNanos.get(item);
            // A later addAfter with an earlier deadline replaced this one; that one fires instead.
            if (pending == null || pending != readyAt) {
                return;
            }
            waitingUntilNanos.remove(item);
        }
        add(item);
    }

    /** Queues {@code item} after the rate limiter's wait for it; counts as one failure of it. */
    public void addRateLimited(T item) {
        addAfter(item, rateLimiter.when(item));
    }

    /** Resets the rate limiter's memory of {@code item}: call after it was processed successfully. */
    public void forget(T item) {
        rateLimiter.forget(item);
    }

    public int numRequeues(T item) {
        return rateLimiter.numRequeues(item);
    }

    /**
     * Blocks until an item is ready and marks it as being processed; empty once the queue is shut down. The caller
     * must call {@link #done} with the item when finished.
     */
    public synchronized Optional<T> get() throws InterruptedException {
        while (queue.isEmpty() && !shuttingDown) {
            wait();
        }
        if (queue.isEmpty()) {
            return Optional.empty();
        }
        T item = queue.pollFirst();
        processing.add(item);
        dirty.remove(item);
        return Optional.of(item);
    }

    /** Marks {@code item} as processed; if it was added meanwhile it is queued again now. */
    public synchronized void done(T item) {
        processing.remove(item);
        if (dirty.contains(item)) {
            queue.addLast(item);
            notify();
        }
    }

    /** Items waiting to be processed (not counting delayed ones). */
    public synchronized int length() {
        return queue.size();
    }

    public synchronized boolean isShuttingDown() {
        return shuttingDown;
    }

    /** Stops accepting items and wakes every worker waiting in {@link #get}; items being processed finish normally. */
    public void shutDown() {
        synchronized (this) {
            shuttingDown = true;
            waitingUntilNanos.clear();
            notifyAll();
        }
        delays.shutdownNow();
    }

    @Override
    public void close() {
        shutDown();
    }
}
