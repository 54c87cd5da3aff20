package io.k4j.kubelet.containerd;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Optional;

/**
 * What k4j's containerd is started with. Everything containerd keeps lives under {@code directory}
 * ({@code <data-dir>/containerd}): {@code config.toml}, {@code root}, {@code state}, the socket and the log.
 *
 * @param containerdBinary the {@code containerd} executable (Debian's {@code /usr/bin/containerd})
 * @param directory where containerd's files live
 * @param sandboxImage the pause image every pod sandbox runs
 * @param cniBinDirectory where the CNI plugins are (Debian's {@code /usr/lib/cni})
 * @param cniConfDirectory where the CNI network configuration is written (by the kubelet's CNI writer)
 * @param registryConfigPath containerd's registry hosts directory ({@code config_path}), if any
 */
public record ContainerdConfig(
        Path containerdBinary,
        Path directory,
        String sandboxImage,
        Path cniBinDirectory,
        Path cniConfDirectory,
        Optional<Path> registryConfigPath) {
    /** The sandbox image node-runtime's {@code k4j images} builds. */
    public static final String DEFAULT_SANDBOX_IMAGE = "docker.io/library/pause:3.10";
    public static final Path DEFAULT_BINARY = Path.of("/usr/bin/containerd");
    public static final Path DEFAULT_CNI_BIN_DIRECTORY = Path.of("/usr/lib/cni");

    public ContainerdConfig {
        requireNonNull(containerdBinary, "containerdBinary is null");
        requireNonNull(directory, "directory is null");
        requireNonNull(sandboxImage, "sandboxImage is null");
        requireNonNull(cniBinDirectory, "cniBinDirectory is null");
        requireNonNull(cniConfDirectory, "cniConfDirectory is null");
        requireNonNull(registryConfigPath, "registryConfigPath is null");
        directory = directory.toAbsolutePath();
    }

    /** The defaults for a data directory's {@code containerd} folder. */
    public static ContainerdConfig defaults(Path directory, Path cniConfDirectory, Optional<Path> registryConfigPath) {
        return new ContainerdConfig(DEFAULT_BINARY, directory, DEFAULT_SANDBOX_IMAGE, DEFAULT_CNI_BIN_DIRECTORY,
                cniConfDirectory, registryConfigPath);
    }

    public Path configFile() {
        return directory.resolve("config.toml");
    }

    public Path socket() {
        return directory.resolve("containerd.sock");
    }

    public Path pidFile() {
        return directory.resolve("containerd.pid");
    }

    public Path logFile() {
        return directory.resolve("containerd.log");
    }

    /** The endpoint as {@code --container-runtime-endpoint} spells it. */
    public String endpoint() {
        return "unix://" + socket();
    }

    /**
     * containerd's {@code config.toml} (version 2): the CRI plugin with runc through cgroupfs (this machine has
     * cgroup v1 and no systemd), the streaming server on loopback, CNI from the given directories.
     */
    public String toml() {
        StringBuilder toml = new StringBuilder();
        toml.append("version = 2\n");
        toml.append("root = ").append(quote(directory.resolve("root"))).append('\n');
        toml.append("state = ").append(quote(directory.resolve("state"))).append('\n');
        toml.append("\n[grpc]\n");
        toml.append("  address = ").append(quote(socket())).append('\n');
        toml.append("\n[ttrpc]\n");
        toml.append("  address = ").append(quote(directory.resolve("containerd.sock.ttrpc"))).append('\n');
        toml.append("\n[plugins]\n");
        toml.append("  [plugins.\"io.containerd.internal.v1.opt\"]\n");
        toml.append("    path = ").append(quote(directory.resolve("opt"))).append('\n');
        toml.append("  [plugins.\"io.containerd.grpc.v1.cri\"]\n");
        toml.append("    sandbox_image = ").append(quote(sandboxImage)).append('\n');
        toml.append("    stream_server_address = \"127.0.0.1\"\n");
        toml.append("    stream_server_port = \"0\"\n");
        toml.append("    enable_selinux = false\n");
        // Sandboxes ask for oom_score_adj -998; where containerd itself may not go below its own (a VM or container
        // without CAP_SYS_RESOURCE over its parent), runc would fail every sandbox. Clamp to containerd's own.
        toml.append("    restrict_oom_score_adj = true\n");
        toml.append("    [plugins.\"io.containerd.grpc.v1.cri\".containerd]\n");
        toml.append("      snapshotter = \"overlayfs\"\n");
        toml.append("      default_runtime_name = \"runc\"\n");
        toml.append("      [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n");
        toml.append("        runtime_type = \"io.containerd.runc.v2\"\n");
        toml.append("        [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc.options]\n");
        toml.append("          SystemdCgroup = false\n");
        toml.append("    [plugins.\"io.containerd.grpc.v1.cri\".cni]\n");
        toml.append("      bin_dir = ").append(quote(cniBinDirectory)).append('\n');
        toml.append("      conf_dir = ").append(quote(cniConfDirectory)).append('\n');
        registryConfigPath.ifPresent(path -> {
            toml.append("    [plugins.\"io.containerd.grpc.v1.cri\".registry]\n");
            toml.append("      config_path = ").append(quote(path)).append('\n');
        });
        return toml.toString();
    }

    private static String quote(Object value) {
        return '"' + value.toString().replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }
}
