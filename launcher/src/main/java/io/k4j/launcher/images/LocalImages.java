package io.k4j.launcher.images;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What a node needs before its kubelet starts: the local registry running, the standard images (busybox, pause,
 * nginx) built in the machine's {@link ImageCache} and present in the registry, and containerd's registry host
 * configuration pointing {@code docker.io} at it. {@link #start} does it all and reports each step; images are built
 * only on the first start of a machine (or when their inputs change) and pushed only when the registry lacks them.
 *
 * <p>Layout under the data directory: {@code registry/} (docker-registry's config, storage, log) and
 * {@code registry/certs.d/} (containerd's {@code config_path}).
 *
 * <p>Thread-safe; {@link #close} stops the registry.
 */
public final class LocalImages implements AutoCloseable {
    /** containerd's {@code sandbox_image}: the pause image, resolved through the docker.io mirror. */
    public static final String SANDBOX_IMAGE = "docker.io/library/pause:" + PauseImage.TAG;

    /**
     * Where and how to run the node's images.
     *
     * @param dataDirectory the k4j data directory ({@code registry/} goes below it)
     * @param cacheDirectory the machine's image cache (see {@link ImageCache#defaultDirectory()})
     * @param registryHost the loopback address the registry listens on
     * @param registryPort the preferred port (a free one is used when it is taken; 0 for any free port)
     */
    public record Options(Path dataDirectory, Path cacheDirectory, String registryHost, int registryPort) {
        public Options {
            requireNonNull(dataDirectory, "dataDirectory is null");
            requireNonNull(cacheDirectory, "cacheDirectory is null");
            requireNonNull(registryHost, "registryHost is null");
        }

        /** The defaults for a data directory: the machine's image cache, 127.0.0.1:5000. */
        public static Options defaults(Path dataDirectory) {
            return new Options(dataDirectory, ImageCache.defaultDirectory(), "127.0.0.1", LocalRegistry.DEFAULT_PORT);
        }
    }

    private final LocalRegistry registry;
    private final Path registryConfigPath;
    private final List<BuiltImage> images;

    private LocalImages(LocalRegistry registry, Path registryConfigPath, List<BuiltImage> images) {
        this.registry = registry;
        this.registryConfigPath = registryConfigPath;
        this.images = images;
    }

    /** Starts the registry, builds what is missing, pushes what the registry lacks and writes the mirror configuration. */
    public static LocalImages start(Options options, Progress progress) throws IOException {
        ImageCache cache = ImageCache.standard(options.cacheDirectory());
        List<BuiltImage> images = cache.build(progress);
        Path registryDirectory = options.dataDirectory().resolve("registry");
        LocalRegistry registry = LocalRegistry.start(registryDirectory, options.registryHost(), options.registryPort(), Optional.empty(), progress);
        try {
            push(cache, images, registry.endpoint(), Optional.empty(), progress);
            Path configPath = RegistryMirrors.write(registryDirectory.resolve("certs.d"), registry.endpoint());
            progress.report("registry: docker.io resolves through " + registry.endpoint() + " (containerd config_path " + configPath + ")");
            return new LocalImages(registry, configPath, images);
        } catch (IOException | RuntimeException e) {
            registry.close();
            throw e;
        }
    }

    /** Pushes each image under each of its tags to {@code library/<name>}, skipping what the registry already has. */
    public static void push(ImageCache cache, List<BuiltImage> images, URI registry, Optional<RegistryPusher.Credentials> credentials,
            Progress progress) throws IOException {
        OciLayout layout = OciLayout.open(cache.layoutDirectory());
        RegistryPusher pusher = new RegistryPusher(registry, credentials);
        for (BuiltImage image : images) {
            List<String> written = pusher.push(layout, image.manifest(), image.repository(), image.tags());
            if (!written.isEmpty()) {
                progress.report("registry: pushed " + image.repository() + ":" + String.join(",", written) + " to " + registry.getAuthority());
            }
        }
    }

    /** containerd's CRI {@code registry.config_path}: the hosts directory that mirrors docker.io to the local registry. */
    public Path registryConfigPath() {
        return registryConfigPath;
    }

    public URI registryEndpoint() {
        return registry.endpoint();
    }

    public List<BuiltImage> images() {
        return images;
    }

    @Override
    public void close() {
        registry.close();
    }
}
