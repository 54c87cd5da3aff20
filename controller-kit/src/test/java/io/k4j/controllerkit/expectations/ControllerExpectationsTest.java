package io.k4j.controllerkit.expectations;

import static org.assertj.core.api.Assertions.assertThat;

import io.k4j.controllerkit.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ControllerExpectationsTest {
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));

    @Test
    void satisfiedOnlyOnceEveryExpectedCreationIsObserved() {
        ControllerExpectations expectations = new ControllerExpectations(clock);
        assertThat(expectations.satisfiedExpectations("ns/rs")).as("no record").isTrue();

        expectations.expectCreations("ns/rs", 2);
        assertThat(expectations.satisfiedExpectations("ns/rs")).isFalse();
        expectations.creationObserved("ns/rs");
        assertThat(expectations.satisfiedExpectations("ns/rs")).isFalse();
        expectations.creationObserved("ns/rs");
        assertThat(expectations.satisfiedExpectations("ns/rs")).isTrue();
    }

    @Test
    void expiredRecordsCountAsSatisfied() {
        ControllerExpectations expectations = new ControllerExpectations(clock);
        expectations.expectDeletions("ns/rs", 1);

        clock.advance(ControllerExpectations.EXPECTATIONS_TIMEOUT.plus(Duration.ofSeconds(1)));

        assertThat(expectations.satisfiedExpectations("ns/rs")).isTrue();
    }

    @Test
    void uidTrackingCountsEachPodDeletionOnce() {
        UidTrackingControllerExpectations expectations = new UidTrackingControllerExpectations(clock);
        expectations.expectDeletions("ns/rs", Set.of("ns/a", "ns/b"));

        expectations.deletionObserved("ns/rs", "ns/a");
        expectations.deletionObserved("ns/rs", "ns/a");
        assertThat(expectations.satisfiedExpectations("ns/rs")).isFalse();
        assertThat(expectations.deletingPods("ns/rs")).containsExactly("ns/b");

        expectations.deletionObserved("ns/rs", "ns/b");
        assertThat(expectations.satisfiedExpectations("ns/rs")).isTrue();
    }
}
