package io.k4j.kubelet.simulated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.k4j.kubelet.nodestatus.NodeHeartbeat;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HeartbeatScheduleTest {
    private static final Instant T0 = Instant.parse("2026-01-02T03:04:05Z");
    private static final Duration INTERVAL = NodeHeartbeat.LEASE_RENEW_INTERVAL;

    private final HeartbeatSchedule schedule = new HeartbeatSchedule(INTERVAL, Duration.ZERO);

    @Test
    void takesTheNodesDueWithinTheBatchWindowWithTheFirstAndTheyStayTogether() {
        HeartbeatSchedule batched = new HeartbeatSchedule(INTERVAL, Duration.ofMillis(100));
        batched.add("a", T0);
        batched.add("b", T0.plusMillis(60));
        batched.add("c", T0.plusMillis(100));
        batched.add("d", T0.plusMillis(101));

        assertThat(batched.pollDue(T0.minusMillis(1))).as("nothing is due yet").isEmpty();
        assertThat(batched.pollDue(T0)).containsExactly("a", "b", "c");
        for (String node : List.of("a", "b", "c")) {
            batched.succeeded(node, T0.plusMillis(20));
        }
        assertThat(batched.pollDue(T0.plusMillis(101))).containsExactly("d");
        batched.succeeded("d", T0.plusMillis(110));

        assertThat(batched.pollDue(T0.plusMillis(20).plus(INTERVAL))).containsExactly("a", "b", "c", "d");
    }

    @Test
    void aBatchWindowMustBeShorterThanTheInterval() {
        assertThatThrownBy(() -> new HeartbeatSchedule(INTERVAL, INTERVAL)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("batchWindow");
    }

    @Test
    void renewsEveryTenSecondsAsTheKubelet() {
        assertThat(INTERVAL).isEqualTo(Duration.ofSeconds(10));
        schedule.add("a", T0);

        assertThat(schedule.pollDue(T0)).containsExactly("a");
        schedule.succeeded("a", T0.plusMillis(30));

        assertThat(schedule.nextDue()).contains(T0.plusMillis(30).plus(INTERVAL));
        assertThat(schedule.pollDue(T0.plusSeconds(10))).isEmpty();
        assertThat(schedule.pollDue(T0.plusMillis(10_030))).containsExactly("a");
    }

    @Test
    void givesDueNodesInOrderAndNeverOneInFlightTwice() {
        schedule.add("late", T0.plusSeconds(5));
        schedule.add("early", T0.plusSeconds(1));
        schedule.add("middle", T0.plusSeconds(3));

        assertThat(schedule.pollDue(T0.plusSeconds(3))).containsExactly("early", "middle");
        assertThat(schedule.nextDue()).contains(T0.plusSeconds(5));
        schedule.add("early", T0);
        assertThat(schedule.pollDue(T0.plusSeconds(4))).as("early is in flight").isEmpty();
        assertThat(schedule.size()).isEqualTo(3);
    }

    @Test
    void failedRenewalsBackOffFrom200MillisecondsUpTo7Seconds() {
        schedule.add("a", T0);
        Instant now = T0;
        Duration[] expected = {Duration.ofMillis(200), Duration.ofMillis(400), Duration.ofMillis(800), Duration.ofMillis(1600),
                Duration.ofMillis(3200), Duration.ofMillis(6400), Duration.ofSeconds(7), Duration.ofSeconds(7)};
        for (Duration delay : expected) {
            assertThat(schedule.pollDue(now)).containsExactly("a");
            schedule.failed("a", now);
            assertThat(schedule.nextDue()).contains(now.plus(delay));
            now = now.plus(delay);
        }
        assertThat(schedule.pollDue(now)).containsExactly("a");
        schedule.succeeded("a", now);
        schedule.pollDue(now.plus(INTERVAL));
        schedule.failed("a", now.plus(INTERVAL));
        assertThat(schedule.nextDue()).as("a success resets the backoff").contains(now.plus(INTERVAL).plusMillis(200));
    }

    @Test
    void aNodeRemovedWhileInFlightIsNotScheduledAgain() {
        schedule.add("a", T0);
        assertThat(schedule.pollDue(T0)).containsExactly("a");

        schedule.remove("a");
        schedule.succeeded("a", T0);
        schedule.failed("a", T0);

        assertThat(schedule.contains("a")).isFalse();
        assertThat(schedule.nextDue()).isEmpty();
    }

    @Test
    void spreadsNodesOverTheInterval() {
        Set<Duration> offsets = new HashSet<>();
        for (int index = 0; index < 100; index++) {
            Duration offset = HeartbeatSchedule.spread("k4j-sim-" + index, INTERVAL);
            assertThat(offset).isGreaterThanOrEqualTo(Duration.ZERO).isLessThan(INTERVAL);
            offsets.add(offset);
        }
        assertThat(offsets).hasSizeGreaterThan(90);
        assertThat(HeartbeatSchedule.spread("k4j-sim-7", INTERVAL)).isEqualTo(HeartbeatSchedule.spread("k4j-sim-7", INTERVAL));
    }
}
