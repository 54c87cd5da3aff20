package io.k4j.apiserver.registry.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class PrintingTest {
    @Test
    void humanDurationRoundsLikeKubectl() {
        assertThat(Printing.humanDuration(Duration.ofSeconds(-1))).isEqualTo("0s");
        assertThat(Printing.humanDuration(Duration.ofSeconds(-5))).isEqualTo("<invalid>");
        assertThat(Printing.humanDuration(Duration.ofSeconds(119))).isEqualTo("119s");
        assertThat(Printing.humanDuration(Duration.ofSeconds(150))).isEqualTo("2m30s");
        assertThat(Printing.humanDuration(Duration.ofMinutes(5))).isEqualTo("5m");
        assertThat(Printing.humanDuration(Duration.ofMinutes(125))).isEqualTo("125m");
        assertThat(Printing.humanDuration(Duration.ofMinutes(200))).isEqualTo("3h20m");
        assertThat(Printing.humanDuration(Duration.ofHours(30))).isEqualTo("30h");
        assertThat(Printing.humanDuration(Duration.ofHours(50))).isEqualTo("2d2h");
        assertThat(Printing.humanDuration(Duration.ofDays(30))).isEqualTo("30d");
        assertThat(Printing.humanDuration(Duration.ofDays(365 * 3 + 5))).isEqualTo("3y5d");
    }

    @Test
    void formatsLabelsSortedOrNone() {
        assertThat(Printing.formatLabels(Json.object("{'b':'2','a':'1'}"))).isEqualTo("a=1,b=2");
        assertThat(Printing.formatLabels(Json.object("{}"))).isEqualTo("<none>");
    }
}
