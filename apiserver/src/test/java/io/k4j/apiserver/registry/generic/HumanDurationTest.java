package io.k4j.apiserver.registry.generic;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HumanDurationTest {
    @ParameterizedTest
    @CsvSource({"-5, <invalid>", "-1, 0s", "0, 0s", "5, 5s", "119, 119s", "120, 2m", "150, 2m30s", "300, 5m", "600, 10m", "2700, 45m",
        "7500, 125m", "10799, 179m", "10800, 3h", "11100, 3h5m", "12000, 3h20m", "28800, 8h", "108000, 30h", "172799, 47h", "172800, 2d",
        "180000, 2d2h", "691200, 8d", "2592000, 30d", "34560000, 400d", "63072000, 2y", "65664000, 2y30d", "95040000, 3y5d",
        "95472000, 3y10d", "252288000, 8y"})
    void formatsAsUpstreamsHumanDuration(long seconds, String expected) {
        assertThat(HumanDuration.format(Duration.ofSeconds(seconds))).isEqualTo(expected);
    }

    @Test
    void agesAnRfc3339TimestampOrSaysUnknown() {
        Instant now = Instant.parse("2026-01-02T03:04:05Z");

        assertThat(HumanDuration.since("2026-01-02T03:01:35Z", now)).isEqualTo("2m30s");
        assertThat(HumanDuration.since("2026-01-02T03:04:00.500000Z", now)).isEqualTo("4s");
        assertThat(HumanDuration.since("", now)).isEqualTo("<unknown>");
        assertThat(HumanDuration.since("yesterday", now)).isEqualTo("<unknown>");
    }
}
