package io.k4j.launcher.images;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The standard images built once per test JVM into a scratch cache (deleted at exit), shared by the test classes
 * that need them; Debian's nginx packages come from the machine's image cache, so only the first run on a machine
 * downloads them.
 */
final class TestImages {
    private static ImageCache cache;
    private static List<BuiltImage> images;
    private static IOException failure;

    private TestImages() {}

    /** Skips the calling test when the host lacks what the images are made from. */
    static void assumeHostCanBuild() {
        assumeTrue(HostCommands.installedVersion(BusyboxImage.PACKAGE).isPresent(), "busybox-static is not installed");
        assumeTrue(HostCommands.find("dpkg-deb").isPresent() && HostCommands.find("ldd").isPresent(), "not a Debian host");
    }

    static synchronized ImageCache cache() throws IOException {
        build();
        return cache;
    }

    static synchronized List<BuiltImage> images() throws IOException {
        build();
        return images;
    }

    static BuiltImage image(String name) throws IOException {
        return images().stream().filter(image -> image.name().equals(name)).findFirst().orElseThrow();
    }

    private static void build() throws IOException {
        assumeHostCanBuild();
        if (failure != null) {
            throw failure;
        }
        if (images != null) {
            return;
        }
        Path directory = Files.createTempDirectory("k4j-test-images");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(directory)));
        BusyboxImage busybox = BusyboxImage.fromHost();
        cache = new ImageCache(directory, List.of(busybox, new PauseImage(busybox),
                new NginxImage(ImageCache.defaultDirectory().resolve("packages"), busybox)));
        try {
            images = cache.build(message -> System.out.println("images: " + message));
        } catch (IOException e) {
            failure = e;
            throw e;
        }
    }

    static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
