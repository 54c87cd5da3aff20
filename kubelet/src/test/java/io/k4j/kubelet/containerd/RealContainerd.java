package io.k4j.kubelet.containerd;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Test support for a real containerd: skips the test unless it runs as root with Debian's containerd and runc, and
 * gives it a short directory (unix socket paths are limited to 108 bytes). Stateless.
 */
public final class RealContainerd {
    private RealContainerd() {}

    /** Skips the calling test unless a real containerd can be started here. */
    public static void assumeAvailable() {
        assumeTrue("root".equals(System.getProperty("user.name")), "a real containerd needs root");
        assumeTrue(Files.isExecutable(ContainerdConfig.DEFAULT_BINARY), "containerd is not installed");
        assumeTrue(Files.isExecutable(Path.of("/usr/sbin/runc")) || Files.isExecutable(Path.of("/usr/bin/runc")),
                "runc is not installed");
    }

    /** A fresh directory for containerd under /tmp; skips the test if containerd cannot run here. */
    public static Path temporaryDirectory() throws IOException {
        assumeAvailable();
        return Files.createTempDirectory(Path.of("/tmp"), "k4j-ctrd-");
    }

    /**
     * Deletes a containerd directory after containerd stopped. Overlay mounts of containers that still exist would
     * make this fail, so callers remove their containers first.
     */
    public static void deleteDirectory(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        Files.walkFileTree(directory, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path directory, IOException error) throws IOException {
                Files.deleteIfExists(directory);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
