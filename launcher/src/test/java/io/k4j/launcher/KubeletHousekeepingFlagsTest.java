package io.k4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.k4j.kubelet.eviction.EvictionThresholds;
import io.k4j.kubelet.eviction.Signal;
import io.k4j.kubelet.eviction.Threshold;
import io.k4j.kubelet.images.ImageGcPolicy;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

class KubeletHousekeepingFlagsTest {
    @Test
    void theNodeHousekeepingHasUpstreamsDefaults() throws Exception {
        ServerConfig config = ServerFlags.parse("--data-dir=/tmp/k4j-unused");

        assertThat(config.podManifestPath()).isEmpty();
        assertThat(config.evictionHard()).isEqualTo(EvictionThresholds.parse(EvictionThresholds.DEFAULT_HARD));
        assertThat(config.imageGcPolicy()).isEqualTo(ImageGcPolicy.DEFAULT);
    }

    @Test
    void theFlagsSetThem() throws Exception {
        ServerConfig config = ServerFlags.parse("--data-dir=/tmp/k4j-unused", "--pod-manifest-path=/etc/k4j/manifests",
                "--eviction-hard=memory.available<1Gi,imagefs.available<20%", "--image-gc-high-threshold=90",
                "--image-gc-low-threshold=70", "--minimum-image-ttl-duration=10m");

        assertThat(config.podManifestPath()).isEqualTo(Optional.of(Path.of("/etc/k4j/manifests")));
        assertThat(config.evictionHard()).extracting(Threshold::signal)
                .containsExactly(Signal.MEMORY_AVAILABLE, Signal.IMAGEFS_AVAILABLE);
        assertThat(config.imageGcPolicy()).isEqualTo(new ImageGcPolicy(90, 70, Duration.ofMinutes(10)));
    }

    @Test
    void aBadEvictionThresholdIsAUsageError() {
        assertThatThrownBy(() -> ServerFlags.parse("--eviction-hard=pid.available<10%"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("unsupported eviction signal pid.available");
    }
}
