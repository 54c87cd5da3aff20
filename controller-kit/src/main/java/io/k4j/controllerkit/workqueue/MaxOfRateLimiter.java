package io.k4j.controllerkit.workqueue;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.List;

/** The longest wait of several limiters; every limiter sees every failure. Thread-safe. */
public final class MaxOfRateLimiter<T> implements RateLimiter<T> {
    private final List<RateLimiter<T>> limiters;

    public MaxOfRateLimiter(List<RateLimiter<T>> limiters) {
        this.limiters = List.copyOf(requireNonNull(limiters, "limiters is null"));
        if (this.limiters.isEmpty()) {
            throw new IllegalArgumentException("no limiters");
        }
    }

    @Override
    public Duration when(T item) {
        Duration longest = Duration.ZERO;
        for (RateLimiter<T> limiter : limiters) {
            Duration wait = limiter.when(item);
            if (wait.compareTo(longest) > 0) {
                longest = wait;
            }
        }
        return longest;
    }

    @Override
    public void forget(T item) {
        limiters.forEach(limiter -> limiter.forget(item));
    }

    @Override
    public int numRequeues(T item) {
        int most = 0;
        for (RateLimiter<T> limiter : limiters) {
            most = Math.max(most, limiter.numRequeues(item));
        }
        return most;
    }

    /**
     * client-go's {@code DefaultControllerRateLimiter}: per-item backoff from 5 ms to 1000 s, and at most 10 retries
     * per second overall with bursts of 100.
     */
    public static <T> RateLimiter<T> defaultControllerRateLimiter() {
        return new MaxOfRateLimiter<>(List.of(
                new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(5), Duration.ofSeconds(1000)),
                new BucketRateLimiter<>(10, 100)));
    }
}
