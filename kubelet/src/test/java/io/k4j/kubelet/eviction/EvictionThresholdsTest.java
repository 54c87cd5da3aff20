package io.k4j.kubelet.eviction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.k4j.api.quantity.Quantity;
import org.junit.jupiter.api.Test;

import java.util.List;

class EvictionThresholdsTest {
    @Test
    void upstreamsDefaultsParse() {
        List<Threshold> thresholds = EvictionThresholds.parse(EvictionThresholds.DEFAULT_HARD);

        assertThat(thresholds).containsExactly(
                new Threshold(Signal.MEMORY_AVAILABLE, new Threshold.Absolute(Quantity.parse("100Mi"))),
                new Threshold(Signal.NODEFS_AVAILABLE, new Threshold.Percentage(0.10)),
                new Threshold(Signal.IMAGEFS_AVAILABLE, new Threshold.Percentage(0.15)),
                new Threshold(Signal.NODEFS_INODES_FREE, new Threshold.Percentage(0.05)));
    }

    @Test
    void aThresholdIsMetBelowItsQuantityOrShareOfCapacity() {
        Threshold memory = EvictionThresholds.parse("memory.available<1000Gi").getFirst();
        Threshold disk = EvictionThresholds.parse("nodefs.available<10%").getFirst();

        assertThat(memory.isMet(4L << 30, 8L << 30)).isTrue();
        assertThat(memory.quantity(8L << 30)).hasToString("1000Gi");
        assertThat(disk.isMet(99, 1000)).isTrue();
        assertThat(disk.isMet(100, 1000)).isFalse();
        assertThat(disk.quantity(1024L * 1024 * 100)).hasToString("10Mi");
    }

    @Test
    void malformedThresholdsAreRefused() {
        assertThatThrownBy(() -> EvictionThresholds.parse("pid.available<10%")).hasMessage("unsupported eviction signal pid.available");
        assertThatThrownBy(() -> EvictionThresholds.parse("memory.available>1Gi")).hasMessageContaining("invalid eviction threshold");
        assertThatThrownBy(() -> EvictionThresholds.parse("nodefs.available<150%"))
                .hasMessage("eviction percentage threshold nodefs.available must be >= 0% and <= 100%: 150%");
        assertThatThrownBy(() -> EvictionThresholds.parse("memory.available<-1Mi")).hasMessageContaining("must be positive");
        assertThatThrownBy(() -> EvictionThresholds.parse("memory.available<1Mi,memory.available<2Mi"))
                .hasMessageContaining("duplicate");
    }

    @Test
    void zeroPercentTurnsASignalOff() {
        assertThat(EvictionThresholds.parse("memory.available<100Mi,nodefs.available<0%")).extracting(Threshold::signal)
                .containsExactly(Signal.MEMORY_AVAILABLE);
    }
}
