package io.k4j.kubelet.containerd;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Optional;

class ContainerdConfigTest {
    @Test
    void keepsEverythingUnderItsDirectory() {
        ContainerdConfig config = ContainerdConfig.defaults(Path.of("/var/lib/k4j/containerd"),
                Path.of("/var/lib/k4j/agent/cni"), Optional.of(Path.of("/var/lib/k4j/agent/registry.d")));

        assertThat(config.endpoint()).isEqualTo("unix:///var/lib/k4j/containerd/containerd.sock");
        assertThat(config.toml())
                .startsWith("version = 2\n")
                .contains("root = \"/var/lib/k4j/containerd/root\"")
                .contains("state = \"/var/lib/k4j/containerd/state\"")
                .contains("address = \"/var/lib/k4j/containerd/containerd.sock\"")
                .contains("sandbox_image = \"docker.io/library/pause:3.10\"")
                .contains("SystemdCgroup = false")
                .contains("bin_dir = \"/usr/lib/cni\"")
                .contains("conf_dir = \"/var/lib/k4j/agent/cni\"")
                .contains("config_path = \"/var/lib/k4j/agent/registry.d\"");
    }

    @Test
    void leavesTheRegistryOutWithoutAHostsDirectory() {
        ContainerdConfig config = ContainerdConfig.defaults(Path.of("/d"), Path.of("/c"), Optional.empty());

        assertThat(config.toml()).doesNotContain("registry").doesNotContain("config_path");
    }
}
