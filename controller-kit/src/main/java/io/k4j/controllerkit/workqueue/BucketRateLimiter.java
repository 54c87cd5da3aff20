package io.k4j.controllerkit.workqueue;

import java.time.Duration;

/**
 * An overall token bucket ({@code qps} refill, {@code burst} capacity) shared by all items, so a storm of failures
 * cannot hammer the apiserver even when each item's own backoff is short. Thread-safe.
 */
public final class BucketRateLimiter<T> implements RateLimiter<T> {
    private final double tokensPerNano;
    private final double burst;
    private final NanoClock clock;
    private double tokens;
    private long lastNanos;

    public BucketRateLimiter(double qps, int burst) {
        this(qps, burst, System::nanoTime);
    }

    BucketRateLimiter(double qps, int burst, NanoClock clock) {
        if (qps <= 0 || burst <= 0) {
            throw new IllegalArgumentException("qps and burst must be positive, got " + qps + " and " + burst);
        }
        this.tokensPerNano = qps / 1e9;
        this.burst = burst;
        this.clock = clock;
        this.tokens = burst;
        this.lastNanos = clock.nanoTime();
    }

    @Override
    public synchronized Duration when(T item) {
        long now = clock.nanoTime();
        tokens = Math.min(burst, tokens + (now - lastNanos) * tokensPerNano);
        lastNanos = now;
        // Reserve a token even when it is not there yet: the wait is how long until it will be.
        tokens -= 1;
        return tokens >= 0 ? Duration.ZERO : Duration.ofNanos((long) Math.ceil(-tokens / tokensPerNano));
    }

    @Override
    public void forget(T item) {}

    @Override
    public int numRequeues(T item) {
        return 0;
    }

    /** A monotonic time source; {@link System#nanoTime} outside tests. */
    @FunctionalInterface
    interface NanoClock {
        long nanoTime();
    }
}
