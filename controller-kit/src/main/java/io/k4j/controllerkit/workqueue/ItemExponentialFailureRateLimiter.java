package io.k4j.controllerkit.workqueue;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/** Per-item exponential backoff: {@code base * 2^failures}, capped at {@code max}. Thread-safe. */
public final class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
    private final Duration base;
    private final Duration max;
    private final ConcurrentMap<T, Integer> failures = new ConcurrentHashMap<>();

    public ItemExponentialFailureRateLimiter(Duration base, Duration max) {
        this.base = requireNonNull(base, "base is null");
        this.max = requireNonNull(max, "max is null");
        if (base.isNegative() || max.compareTo(base) < 0) {
            throw new IllegalArgumentException("need 0 <= base <= max, got " + base + " and " + max);
        }
    }

    @Override
    public Duration when(T item) {
        int exponent = failures.merge(item, 1, Integer::sum) - 1;
        // Past 2^62 nanoseconds the multiplication overflows; the cap is reached long before.
        if (exponent >= 62) {
            return max;
        }
        long nanos = base.toNanos();
        long scaled = nanos << exponent;
        if (nanos != 0 && (scaled >>> exponent) != nanos) {
            return max;
        }
        Duration backoff = Duration.ofNanos(scaled);
        return backoff.compareTo(max) > 0 ? max : backoff;
    }

    @Override
    public void forget(T item) {
        failures.remove(item);
    }

    @Override
    public int numRequeues(T item) {
        return failures.getOrDefault(item, 0);
    }
}
