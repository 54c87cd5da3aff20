package io.k4j.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SchedulingThroughputTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void samplesEachIntervalAfterTheFirstScheduledPod() {
        // Created at 0; 5 pods bound in the first second (base only), then 10, 20 and 30 per second; 3 more in a partial
        // last interval that ends before the next tick and is therefore not sampled.
        long[] binds = new long[5 + 10 + 20 + 30 + 3];
        int index = 0;
        for (int i = 0; i < 5; i++) {
            binds[index++] = SECOND / 2 + i;
        }
        int[] perSecond = {10, 20, 30};
        for (int second = 0; second < perSecond.length; second++) {
            for (int i = 0; i < perSecond[second]; i++) {
                binds[index++] = (second + 1) * SECOND + SECOND / 2 + i;
            }
        }
        for (int i = 0; i < 3; i++) {
            binds[index++] = 4 * SECOND + SECOND / 4 + i;
        }

        SchedulingThroughput throughput = SchedulingThroughput.of(binds, 0, SECOND);

        assertThat(throughput.samples()).containsExactly(10.0, 20.0, 30.0);
        assertThat(throughput.average()).isEqualTo(20.0);
        assertThat(throughput.percentile(50)).isEqualTo(20.0);
        assertThat(throughput.percentile(99)).isEqualTo(30.0);
    }

    @Test
    void anIntervalWithoutBindingsIsFoldedIntoTheNextOne() {
        // Base at tick 1; nothing in the second interval; 8 pods in the third, so 8 pods over 2 s recorded twice.
        long[] binds = {SECOND / 2, 2 * SECOND + SECOND / 2, 2 * SECOND + SECOND / 2 + 1, 2 * SECOND + SECOND / 2 + 2, 2 * SECOND + SECOND / 2 + 3,
                2 * SECOND + SECOND / 2 + 4, 2 * SECOND + SECOND / 2 + 5, 2 * SECOND + SECOND / 2 + 6, 2 * SECOND + SECOND / 2 + 7, 4 * SECOND};

        SchedulingThroughput throughput = SchedulingThroughput.of(binds, 0, SECOND);

        assertThat(throughput.samples()).containsExactly(1.0, 4.0, 4.0);
    }

    @Test
    void noBindingsGiveNoSamples() {
        SchedulingThroughput throughput = SchedulingThroughput.of(new long[0], 0, SECOND);

        assertThat(throughput.samples()).isEmpty();
        assertThat(throughput.average()).isNaN();
    }
}
