package io.k4j.launcher.images;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * {@code pause:3.10}, the pod sandbox image (containerd's {@code sandbox_image}). With a C compiler on the host it is
 * a real pause: {@code pause.c} (beside this class) compiled with {@code gcc -static}, a few hundred kilobytes that
 * wait for SIGTERM/SIGINT and reap zombies. Without gcc it falls back, and says so, to busybox running a shell loop
 * that traps the stop signals and waits for its children (which also reaps orphans, less promptly).
 *
 * <p>Not thread-safe; used by one build at a time.
 */
public final class PauseImage implements ImageRecipe {
    private static final String RECIPE_VERSION = "pause-1";
    public static final String TAG = "3.10";
    static final String FALLBACK_SCRIPT = """
            #!/bin/busybox sh
            # k4j's fallback pause (no C compiler was found when the image was built): wait for the stop signal.
            trap 'exit 0' TERM INT
            while :; do
              /bin/busybox sleep 2147483647 &
              wait
            done
            """;

    private final BusyboxImage busybox;
    private Optional<Path> compiler = Optional.empty();

    public PauseImage(BusyboxImage busybox) {
        this.busybox = busybox;
    }

    @Override
    public String name() {
        return "pause";
    }

    @Override
    public List<String> tags() {
        return List.of(TAG);
    }

    @Override
    public String inputs(Progress progress) throws IOException {
        compiler = HostCommands.find("gcc");
        if (compiler.isPresent()) {
            String compilerVersion = HostCommands.run(compiler.get().toString(), "-dumpfullversion").strip();
            String libc = HostCommands.installedVersion("libc6-dev").orElse("unknown");
            return RECIPE_VERSION + " pause.c=sha256:" + java.util.HexFormat.of().formatHex(OciLayout.sha256().digest(source()))
                    + " gcc=" + compilerVersion + " libc6-dev=" + libc;
        }
        return RECIPE_VERSION + " fallback " + busybox.inputs(progress);
    }

    @Override
    public ImageDefinition build(Path workDirectory, Progress progress) throws IOException {
        ImageFilesystem filesystem = new ImageFilesystem();
        String createdBy;
        if (compiler.isPresent()) {
            Path source = copySource(workDirectory);
            Path binary = workDirectory.resolve("pause");
            progress.report("pause: compiling pause.c with " + compiler.get() + " -static");
            try {
                HostCommands.run(List.of(compiler.get().toString(), "-static", "-Os", "-s", "-o", binary.toString(), source.toString()), workDirectory);
            } catch (IOException e) {
                throw new IOException("cannot compile the pause binary (is libc6-dev installed?): " + e.getMessage(), e);
            }
            filesystem.file("pause", 0755, binary);
            createdBy = "k4j images: pause.c compiled with gcc -static";
        } else {
            progress.report("pause: no C compiler (gcc) on this machine; falling back to a busybox shell loop as the pause process");
            BusyboxImage.addBusybox(filesystem, Path.of("/bin/busybox"), "bin/busybox");
            filesystem.file("pause", 0755, FALLBACK_SCRIPT);
            createdBy = "k4j images: fallback pause (busybox sh loop; no gcc on the build machine)";
        }
        ImageConfig config = new ImageConfig(List.of("/pause"), List.of(), List.of(ImageConfig.DEFAULT_PATH), List.of(), "/", "");
        return new ImageDefinition(filesystem, config, createdBy);
    }

    private static byte[] source() throws IOException {
        try (InputStream in = PauseImage.class.getResourceAsStream("pause.c")) {
            if (in == null) {
                throw new IOException("pause.c is missing from the k4j launcher jar");
            }
            return in.readAllBytes();
        }
    }

    private static Path copySource(Path directory) throws IOException {
        return Files.write(directory.resolve("pause.c"), source());
    }
}
