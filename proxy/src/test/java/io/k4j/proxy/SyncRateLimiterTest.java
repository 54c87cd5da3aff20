package io.k4j.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SyncRateLimiterTest {
    private static final long SECOND = Duration.ofSeconds(1).toNanos();
    private static final long START = 5_000 * SECOND;

    @Test
    void afterAQuietTimeTwoSyncsRunAtOnceAndTheThirdWaitsForTheInterval() {
        SyncRateLimiter limiter = new SyncRateLimiter(Duration.ofSeconds(1), 2, START);

        assertThat(limiter.delayNanos(START)).isZero();
        limiter.take(START);
        assertThat(limiter.delayNanos(START + 100_000_000)).as("a periodic resync does not hold up the next change").isZero();
        limiter.take(START + 100_000_000);
        assertThat(limiter.delayNanos(START + 200_000_000)).isEqualTo(800_000_000);
    }

    @Test
    void aSteadyStreamSyncsOncePerInterval() {
        SyncRateLimiter limiter = new SyncRateLimiter(Duration.ofSeconds(1), 2, START);
        long now = START;
        for (int i = 0; i < 2; i++) {
            limiter.take(now);
        }
        for (int i = 0; i < 5; i++) {
            long delay = limiter.delayNanos(now);
            assertThat(delay).isEqualTo(i == 0 ? SECOND : SECOND - 10);
            now += delay;
            limiter.take(now);
            now += 10;
        }
    }

    @Test
    void tokensRefillUpToTheBurstOnly() {
        SyncRateLimiter limiter = new SyncRateLimiter(Duration.ofSeconds(1), 2, START);
        limiter.take(START);
        limiter.take(START);

        long later = START + 60 * SECOND;
        limiter.take(later);
        limiter.take(later);

        assertThat(limiter.delayNanos(later)).isEqualTo(SECOND);
    }

    @Test
    void aZeroIntervalNeverWaits() {
        SyncRateLimiter limiter = new SyncRateLimiter(Duration.ZERO, 2, START);
        for (int i = 0; i < 10; i++) {
            limiter.take(START);
        }

        assertThat(limiter.delayNanos(START)).isZero();
    }
}
