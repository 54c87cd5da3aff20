package io.k4j.launcher.images;

import static java.util.Objects.requireNonNull;

import io.k4j.kubelet.cni.CniConfig;
import io.k4j.launcher.packages.PackageInstaller;
import java.io.IOException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything a real node needs around containerd, prepared in one call before the kubelet starts: the Debian
 * packages (installed when missing, as root on Debian), the local registry with the standard images
 * ({@link LocalImages}), containerd's registry {@code config_path} mirroring docker.io to it, and the CNI directories
 * with the conflist writer for the node's podCIDR. containerd itself is started by the kubelet's side
 * ({@code ContainerdProcess}) with the paths given here.
 *
 * <p>Layout under the data directory: {@code registry/} (docker-registry), {@code registry/certs.d/}
 * ({@link #registryConfigPath()}), {@code cni/net.d/} ({@link #cniConfDirectory()}), {@code cni/networks/}
 * (host-local's allocations).
 *
 * <p>Thread-safe; {@link #close} stops the registry.
 */
public final class NodeRuntimeSetup implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NodeRuntimeSetup.class);

    private final Path dataDirectory;
    private final LocalImages images;

    private NodeRuntimeSetup(Path dataDirectory, LocalImages images) {
        this.dataDirectory = dataDirectory;
        this.images = images;
    }

    /** Prepares the node with the default registry address (127.0.0.1:5000, or a free port) and the machine's image cache. */
    public static NodeRuntimeSetup prepare(Path dataDirectory) throws IOException, PackageInstaller.MissingPackagesException {
        return prepare(LocalImages.Options.defaults(dataDirectory), logProgress());
    }

    public static NodeRuntimeSetup prepare(LocalImages.Options options, Progress progress)
            throws IOException, PackageInstaller.MissingPackagesException {
        requireNonNull(options, "options is null");
        PackageInstaller.ensureInstalled(PackageInstaller.NODE_PACKAGES, progress);
        return new NodeRuntimeSetup(options.dataDirectory().toAbsolutePath(), LocalImages.start(options, progress));
    }

    /** Progress as INFO log lines (what {@code k4j server} shows while a first start builds the images). */
    public static Progress logProgress() {
        return message -> LOG.info("node setup: {}", message);
    }

    /** containerd's CRI {@code registry.config_path} (docker.io mirrored to the local registry). */
    public Path registryConfigPath() {
        return images.registryConfigPath();
    }

    /** containerd's CRI {@code sandbox_image}. */
    public String sandboxImage() {
        return LocalImages.SANDBOX_IMAGE;
    }

    /** containerd's CRI {@code cni.conf_dir}; empty until {@link #writeCniConfig} runs. */
    public Path cniConfDirectory() {
        return dataDirectory.resolve("cni").resolve("net.d");
    }

    /** containerd's CRI {@code cni.bin_dir}: Debian's containernetworking-plugins. */
    public Path cniPluginDirectory() {
        return CniConfig.DEBIAN_PLUGIN_DIRECTORY;
    }

    /**
     * Writes (atomically, only if changed) the pod network for the node's {@code spec.podCIDR} on {@code bridgeName};
     * returns the file.
     *
     * @param bridgeMasquerade whether the bridge plugin masquerades each pod (the node's own rule is missing)
     */
    public Path writeCniConfig(String podCidr, String bridgeName, boolean bridgeMasquerade) throws IOException {
        CniConfig network = CniConfig.forPodCidr(podCidr, bridgeName, dataDirectory.resolve("cni").resolve("networks"));
        return (bridgeMasquerade ? network.withBridgeMasquerade() : network).write(cniConfDirectory());
    }

    public LocalImages images() {
        return images;
    }

    @Override
    public void close() {
        images.close();
    }
}
