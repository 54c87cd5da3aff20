package io.k4j.kubelet.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class CriLogLineTest {
    @Test
    void parsesFullAndPartialEntries() {
        CriLogLine full = CriLogLine.parse("2016-10-06T00:17:09.669794202Z stdout F log content 1".getBytes(StandardCharsets.UTF_8)).orElseThrow();
        assertThat(full.timestamp()).isEqualTo(Instant.parse("2016-10-06T00:17:09.669794202Z"));
        assertThat(full.stream()).isEqualTo(CriLogLine.Stream.STDOUT);
        assertThat(full.partial()).isFalse();
        assertThat(new String(full.content(), StandardCharsets.UTF_8)).isEqualTo("log content 1");

        CriLogLine partial = CriLogLine.parse("2016-10-06T00:17:09.669794203+02:00 stderr P part".getBytes(StandardCharsets.UTF_8)).orElseThrow();
        assertThat(partial.stream()).isEqualTo(CriLogLine.Stream.STDERR);
        assertThat(partial.partial()).isTrue();
        assertThat(new String(partial.content(), StandardCharsets.UTF_8)).isEqualTo("part");
    }

    @Test
    void keepsEmptyContent() {
        CriLogLine empty = CriLogLine.parse("2016-10-06T00:17:09Z stdout F ".getBytes(StandardCharsets.UTF_8)).orElseThrow();
        assertThat(empty.content()).isEmpty();
        assertThat(CriLogLine.parse("2016-10-06T00:17:09Z stdout F".getBytes(StandardCharsets.UTF_8)).orElseThrow().content()).isEmpty();
    }

    @Test
    void rejectsOtherFormats() {
        assertThat(CriLogLine.parse("hello world".getBytes(StandardCharsets.UTF_8))).isEmpty();
        assertThat(CriLogLine.parse("2016-10-06T00:17:09Z stdin F x".getBytes(StandardCharsets.UTF_8))).isEmpty();
        assertThat(CriLogLine.parse("yesterday stdout F x".getBytes(StandardCharsets.UTF_8))).isEmpty();
    }
}
