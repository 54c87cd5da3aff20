package io.k4j.kubelet.kuberuntime;

import static org.assertj.core.api.Assertions.assertThat;

import io.k4j.controllerkit.testing.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

class BackoffTest {
    private final MutableClock clock = new MutableClock(TestPods.T0);
    private final Backoff backoff = Backoff.containerRestarts(clock);

    @Test
    void doublesFromTenSecondsToFiveMinutes() {
        Instant failure = clock.instant();
        Duration[] expected = {Duration.ofSeconds(10), Duration.ofSeconds(20), Duration.ofSeconds(40),
                Duration.ofSeconds(80), Duration.ofSeconds(160), Duration.ofMinutes(5), Duration.ofMinutes(5)};
        for (Duration delay : expected) {
            assertThat(backoff.next("pod/c", failure)).isEqualTo(delay);
            failure = failure.plus(delay);
        }
    }

    @Test
    void isInBackOffUntilTheDelayPassed() {
        Instant failure = clock.instant();
        backoff.next("pod/c", failure);

        clock.advance(Duration.ofSeconds(9));
        assertThat(backoff.isInBackOffSince("pod/c", failure)).isTrue();
        clock.advance(Duration.ofSeconds(1));
        assertThat(backoff.isInBackOffSince("pod/c", failure)).isFalse();
    }

    @Test
    void startsOverAfterTenMinutesWithoutFailure() {
        Instant failure = clock.instant();
        backoff.next("pod/c", failure);
        backoff.next("pod/c", failure.plusSeconds(10));

        assertThat(backoff.next("pod/c", failure.plus(Duration.ofMinutes(11)))).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void printsDurationsAsGo() {
        assertThat(Backoff.goDuration(Duration.ofSeconds(10))).isEqualTo("10s");
        assertThat(Backoff.goDuration(Duration.ofSeconds(80))).isEqualTo("1m20s");
        assertThat(Backoff.goDuration(Duration.ofMinutes(5))).isEqualTo("5m0s");
    }
}
