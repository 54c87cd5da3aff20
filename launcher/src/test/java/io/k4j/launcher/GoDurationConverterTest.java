package io.k4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.TypeConversionException;

class GoDurationConverterTest {
    @Test
    void readsGoDurations() {
        assertThat(GoDurationConverter.parse("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(GoDurationConverter.parse("1h0m0s")).isEqualTo(Duration.ofHours(1));
        assertThat(GoDurationConverter.parse("1h30m")).isEqualTo(Duration.ofMinutes(90));
        assertThat(GoDurationConverter.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(GoDurationConverter.parse("300ms")).isEqualTo(Duration.ofMillis(300));
        assertThat(GoDurationConverter.parse("0")).isEqualTo(Duration.ZERO);
    }

    @Test
    void rejectsWhatGoRejects() {
        for (String text : new String[] {"", "1", "h", "1x", "1h 2m", "-"}) {
            assertThatThrownBy(() -> GoDurationConverter.parse(text)).as(text).isInstanceOf(TypeConversionException.class);
        }
    }

    @Test
    void serverTakesEventTtlWithUpstreamsDefault() throws Exception {
        ServerCommand defaults = new ServerCommand();
        new CommandLine(defaults).parseArgs("--data-dir=/tmp/k4j-unused");
        assertThat(defaults.toConfig().eventTtl()).isEqualTo(Duration.ofHours(1));

        ServerCommand custom = new ServerCommand();
        new CommandLine(custom).parseArgs("--data-dir=/tmp/k4j-unused", "--event-ttl=5m");
        assertThat(custom.toConfig().eventTtl()).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void serverTakesEtcdCompactionIntervalWithUpstreamsDefaultAndZeroToDisable() throws Exception {
        ServerCommand defaults = new ServerCommand();
        new CommandLine(defaults).parseArgs("--data-dir=/tmp/k4j-unused");
        assertThat(defaults.toConfig().etcdCompactionInterval()).isEqualTo(Duration.ofMinutes(5));

        ServerCommand disabled = new ServerCommand();
        new CommandLine(disabled).parseArgs("--data-dir=/tmp/k4j-unused", "--etcd-compaction-interval=0");
        assertThat(disabled.toConfig().etcdCompactionInterval()).isZero();
    }
}
