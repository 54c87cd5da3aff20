package io.k4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

import java.time.Duration;

class NodeMonitorGracePeriodFlagTest {
    @Test
    void defaultsToUpstreamsFiftySeconds() throws Exception {
        assertThat(ServerFlags.parse("--data-dir=/tmp/k4j-unused").nodeMonitorGracePeriod()).isEqualTo(Duration.ofSeconds(50));
    }

    @Test
    void takesAGoDuration() throws Exception {
        assertThat(ServerFlags.parse("--data-dir=/tmp/k4j-unused", "--node-monitor-grace-period=1m30s").nodeMonitorGracePeriod())
                .isEqualTo(Duration.ofSeconds(90));
    }

    @Test
    void refusesLessThanASecond() {
        assertThatThrownBy(() -> ServerFlags.parse("--data-dir=/tmp/k4j-unused", "--node-monitor-grace-period=500ms"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--node-monitor-grace-period must be at least 1s, not 500ms");
    }
}
