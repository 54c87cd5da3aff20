package io.k4j.proxy;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * The proxier's sync rate limit, a token bucket as upstream's BoundedFrequencyRunner: one token per
 * {@code minInterval}, at most {@code burst} of them, one taken per sync. After a quiet time {@code burst} syncs run
 * back to back, so that a periodic resync or a lone change does not make the next change wait; under a steady stream
 * of changes syncs run once per {@code minInterval}. Times are {@link System#nanoTime()} values, passed in so that
 * tests choose them. Not thread-safe: the proxier guards it.
 */
final class SyncRateLimiter {
    private final long intervalNanos;
    private final int burst;
    /** When the bucket was (or will be) empty: it holds {@code (now - emptyAtNanos) / interval} tokens, at most the burst. */
    private long emptyAtNanos;

    /** A full bucket at {@code nowNanos}. */
    SyncRateLimiter(Duration minInterval, int burst, long nowNanos) {
        requireNonNull(minInterval, "minInterval is null");
        if (minInterval.isNegative()) {
            throw new IllegalArgumentException("minInterval must not be negative: " + minInterval);
        }
        if (burst < 1) {
            throw new IllegalArgumentException("burst must be at least 1: " + burst);
        }
        this.intervalNanos = minInterval.toNanos();
        this.burst = burst;
        this.emptyAtNanos = nowNanos - burst * intervalNanos;
    }

    /** How long from {@code nowNanos} until a token is there: zero when one is. */
    long delayNanos(long nowNanos) {
        return Math.max(0, floor(nowNanos) + intervalNanos - nowNanos);
    }

    /** Takes a token at {@code nowNanos} (a sync starts); when none is there, the next one is spoken for. */
    void take(long nowNanos) {
        emptyAtNanos = floor(nowNanos) + intervalNanos;
    }

    /** The empty time, but never more than a burst's worth of tokens ago: the bucket holds no more. */
    private long floor(long nowNanos) {
        return Math.max(emptyAtNanos, nowNanos - burst * intervalNanos);
    }
}
