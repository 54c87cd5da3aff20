package io.k4j.apiserver.registry.generic;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class GenericStrategyTest {
    @Test
    void humanDurationsAsKubectlPrintsThem() {
        assertThat(GenericStrategy.humanDuration(Duration.ofSeconds(5))).isEqualTo("5s");
        assertThat(GenericStrategy.humanDuration(Duration.ofSeconds(119))).isEqualTo("119s");
        assertThat(GenericStrategy.humanDuration(Duration.ofSeconds(150))).isEqualTo("2m30s");
        assertThat(GenericStrategy.humanDuration(Duration.ofMinutes(45))).isEqualTo("45m");
        assertThat(GenericStrategy.humanDuration(Duration.ofMinutes(200))).isEqualTo("3h20m");
        assertThat(GenericStrategy.humanDuration(Duration.ofHours(30))).isEqualTo("30h");
        assertThat(GenericStrategy.humanDuration(Duration.ofHours(50))).isEqualTo("2d2h");
        assertThat(GenericStrategy.humanDuration(Duration.ofDays(400))).isEqualTo("400d");
        assertThat(GenericStrategy.humanDuration(Duration.ofDays(365 * 3 + 10))).isEqualTo("3y10d");
    }
}
