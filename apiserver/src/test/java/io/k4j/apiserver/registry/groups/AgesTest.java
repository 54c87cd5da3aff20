package io.k4j.apiserver.registry.groups;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AgesTest {
    @ParameterizedTest
    @CsvSource({"-5, <invalid>", "-1, 0s", "0, 0s", "119, 119s", "120, 2m", "150, 2m30s", "600, 10m", "10799, 179m", "10800, 3h", "11100, 3h5m",
        "28800, 8h", "172799, 47h", "172800, 2d", "180000, 2d2h", "691200, 8d", "63072000, 2y", "65664000, 2y30d", "252288000, 8y"})
    void formatsAsUpstreamsHumanDuration(long seconds, String expected) {
        assertThat(Ages.humanDuration(Duration.ofSeconds(seconds))).isEqualTo(expected);
    }
}
