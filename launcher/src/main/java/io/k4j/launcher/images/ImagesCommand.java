package io.k4j.launcher.images;

import io.k4j.launcher.packages.PackageInstaller;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code k4j images}: builds the node's images (busybox, pause, nginx) from Debian packages and host binaries into
 * the machine's image cache and pushes them into the data directory's local registry, reporting each step.
 * {@code k4j server} does the same on its own before the kubelet starts; this command does it ahead of time.
 */
@Command(name = "images", mixinStandardHelpOptions = true,
        description = "Build the node's images (busybox, pause, nginx) and push them into k4j's local registry.")
public final class ImagesCommand implements Callable<Integer> {
    @Option(names = "--data-dir", description = "The data directory whose registry receives the images (default /var/lib/k4j as root, ~/.k4j otherwise).")
    Path dataDir;

    @Option(names = "--image-cache", description = "Where built images are kept for the whole machine (default /var/cache/k4j/images as root, ~/.cache/k4j/images otherwise).")
    Path imageCache;

    @Option(names = "--registry-port", defaultValue = "5000", description = "Preferred port of the local registry on 127.0.0.1 (default ${DEFAULT-VALUE}).")
    int registryPort;

    @Option(names = "--rebuild", description = "Rebuild every image even when its inputs did not change.")
    boolean rebuild;

    @Option(names = "--no-push", description = "Only build into the image cache; do not start the registry.")
    boolean noPush;

    @Override
    public Integer call() throws Exception {
        Progress progress = message -> System.err.println("k4j images: " + message);
        List<PackageInstaller.RequiredPackage> needed = PackageInstaller.NODE_PACKAGES.stream()
                .filter(required -> required.debianPackage().equals("busybox-static") || (!noPush && required.debianPackage().equals("docker-registry")))
                .toList();
        PackageInstaller.ensureInstalled(needed, progress);
        Path cacheDirectory = imageCache != null ? imageCache : ImageCache.defaultDirectory();
        ImageCache cache = ImageCache.standard(cacheDirectory);
        List<BuiltImage> images = cache.build(progress, rebuild);
        if (!noPush) {
            Path dataDirectory = dataDir != null ? dataDir : defaultDataDirectory();
            try (LocalRegistry registry = LocalRegistry.start(dataDirectory.resolve("registry"), "127.0.0.1", registryPort, Optional.empty(), progress)) {
                LocalImages.push(cache, images, registry.endpoint(), Optional.empty(), progress);
            }
        }
        for (BuiltImage image : images) {
            for (String tag : image.tags()) {
                System.out.printf("docker.io/%s:%s\t%s%n", image.repository(), tag, image.manifest().digest());
            }
        }
        return 0;
    }

    private static Path defaultDataDirectory() {
        boolean root = "root".equals(System.getProperty("user.name"));
        return root ? Path.of("/var/lib/k4j") : Path.of(System.getProperty("user.home"), ".k4j");
    }
}
