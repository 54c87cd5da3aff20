package io.k4j.kubelet.containerd;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Minimal OCI images for tests against a real containerd, built here without a registry: {@code busybox} (the
 * host's static busybox with its applets as symlinks) and a {@code pause} stand-in (busybox sleeping until SIGTERM),
 * imported into containerd's {@code k8s.io} namespace with {@code ctr}. node-runtime's {@code k4j images} builds the
 * real ones. Stateless.
 */
public final class TestImages {
    public static final String BUSYBOX = "docker.io/library/busybox:1.36";
    public static final String PAUSE = ContainerdConfig.DEFAULT_SANDBOX_IMAGE;
    private static final Path BUSYBOX_BINARY = Path.of("/bin/busybox");

    private TestImages() {}

    /** Whether the tools to build the images are installed. */
    public static boolean available() {
        return Files.isExecutable(Path.of("/usr/bin/umoci")) && Files.isExecutable(Path.of("/usr/bin/ctr"))
                && Files.isExecutable(BUSYBOX_BINARY);
    }

    /** Builds and imports busybox and pause into the containerd at {@code socket}. */
    public static void importInto(Path socket, Path workDirectory) throws IOException, InterruptedException {
        importImage(socket, workDirectory.resolve("busybox"), "docker.io/library/busybox", "1.36",
                List.of("--config.cmd", "sh"));
        importImage(socket, workDirectory.resolve("pause"), "docker.io/library/pause", "3.10",
                List.of("--config.entrypoint", "/bin/sh", "--config.entrypoint", "-c",
                        "--config.entrypoint", "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait; done"));
    }

    private static void importImage(Path socket, Path directory, String name, String tag, List<String> config)
            throws IOException, InterruptedException {
        Files.createDirectories(directory);
        Path layout = directory.resolve("oci");
        Path bundle = directory.resolve("bundle");
        String image = layout + ":" + tag;
        run("umoci", "init", "--layout", layout.toString());
        run("umoci", "new", "--image", image);
        run("umoci", "unpack", "--image", image, bundle.toString());
        Path rootfs = bundle.resolve("rootfs");
        Files.createDirectories(rootfs.resolve("bin"));
        Files.createDirectories(rootfs.resolve("tmp"));
        Files.copy(BUSYBOX_BINARY, rootfs.resolve("bin/busybox"));
        // Applets as relative symlinks to busybox (its --install would link to the host's path).
        Process list = new ProcessBuilder(BUSYBOX_BINARY.toString(), "--list").start();
        for (String applet : new String(list.getInputStream().readAllBytes()).split("\n")) {
            Path link = rootfs.resolve("bin").resolve(applet.trim());
            if (!applet.isBlank() && !applet.equals("busybox") && !Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                Files.createSymbolicLink(link, Path.of("busybox"));
            }
        }
        list.waitFor();
        run("umoci", "repack", "--image", image, bundle.toString());
        List<String> configure = new ArrayList<>(List.of("umoci", "config", "--image", image,
                "--config.env", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"));
        configure.addAll(config);
        run(configure.toArray(String[]::new));
        Path archive = directory.resolve("image.tar");
        run("tar", "-C", layout.toString(), "-cf", archive.toString(), ".");
        run("ctr", "--address", socket.toString(), "--namespace", "k8s.io", "images", "import", "--base-name", name,
                archive.toString());
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + output);
        }
    }
}
