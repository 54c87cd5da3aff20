package io.k4j.api.protobuf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class GoDurationTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void formatsAsGoDoes() {
        assertThat(GoDuration.format(0)).isEqualTo("0s");
        assertThat(GoDuration.format(3600 * SECOND)).isEqualTo("1h0m0s");
        assertThat(GoDuration.format(90 * SECOND)).isEqualTo("1m30s");
        assertThat(GoDuration.format(1_500_000_000L)).isEqualTo("1.5s");
        assertThat(GoDuration.format(300_000_000L)).isEqualTo("300ms");
        assertThat(GoDuration.format(1_500L)).isEqualTo("1.5µs");
        assertThat(GoDuration.format(1L)).isEqualTo("1ns");
        assertThat(GoDuration.format(-60 * SECOND)).isEqualTo("-1m0s");
        assertThat(GoDuration.format(2 * 3600 * SECOND + 45 * 60 * SECOND + SECOND / 2)).isEqualTo("2h45m0.5s");
        assertThat(GoDuration.format(Long.MIN_VALUE)).isEqualTo("-2562047h47m16.854775808s");
    }

    @Test
    void parsesWhatGoParses() {
        assertThat(GoDuration.parse("1h0m0s")).isEqualTo(3600 * SECOND);
        assertThat(GoDuration.parse("1h30m")).isEqualTo(5400 * SECOND);
        assertThat(GoDuration.parse("1.5h")).isEqualTo(5400 * SECOND);
        assertThat(GoDuration.parse("-300ms")).isEqualTo(-300_000_000L);
        assertThat(GoDuration.parse("1.5µs")).isEqualTo(1_500L);
        assertThat(GoDuration.parse("2us")).isEqualTo(2_000L);
        assertThat(GoDuration.parse("0")).isZero();
        assertThat(GoDuration.parse(GoDuration.format(123_456_789_012L))).isEqualTo(123_456_789_012L);
    }

    @Test
    void rejectsWhatGoRejects() {
        for (String text : new String[] {"", "1", "h", "1x", "1.2.3s", "-", "9999999999h"}) {
            assertThatThrownBy(() -> GoDuration.parse(text))
                    .as(text)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("time: invalid duration \"" + text + "\"");
        }
    }
}
