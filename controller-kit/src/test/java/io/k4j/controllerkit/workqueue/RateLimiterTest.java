package io.k4j.controllerkit.workqueue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RateLimiterTest {
    @Test
    void exponentialBackoffDoublesPerFailureUpToTheCap() {
        ItemExponentialFailureRateLimiter<String> limiter = new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(5), Duration.ofSeconds(1));

        assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(5));
        assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(10));
        assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(20));
        assertThat(limiter.when("b")).as("items back off independently").isEqualTo(Duration.ofMillis(5));
        for (int failure = 0; failure < 100; failure++) {
            limiter.when("a");
        }
        assertThat(limiter.when("a")).isEqualTo(Duration.ofSeconds(1));

        limiter.forget("a");
        assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(5));
    }

    @Test
    void bucketAllowsTheBurstThenPacesAtQps() {
        AtomicLong nanos = new AtomicLong();
        BucketRateLimiter<String> limiter = new BucketRateLimiter<>(10, 2, nanos::get);

        assertThat(limiter.when("a")).isZero();
        assertThat(limiter.when("b")).isZero();
        assertThat(limiter.when("c")).isEqualTo(Duration.ofMillis(100));
        assertThat(limiter.when("d")).isEqualTo(Duration.ofMillis(200));

        nanos.addAndGet(Duration.ofSeconds(10).toNanos());
        assertThat(limiter.when("e")).as("refilled, but never past the burst").isZero();
    }

    @Test
    void maxOfTakesTheLongestWait() {
        RateLimiter<String> limiter = new MaxOfRateLimiter<>(List.of(
                new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(5), Duration.ofSeconds(1)),
                new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(50), Duration.ofSeconds(1))));

        assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(50));
        assertThat(limiter.numRequeues("a")).isEqualTo(1);
    }
}
