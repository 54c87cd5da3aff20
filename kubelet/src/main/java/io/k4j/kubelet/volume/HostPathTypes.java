package io.k4j.kubelet.volume;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Upstream's hostPath {@code type} checks, with its messages. Stateless and thread-safe. */
final class HostPathTypes {
    private HostPathTypes() {}

    /**
     * Checks (and for the {@code …OrCreate} types creates) the host path.
     *
     * @throws IllegalArgumentException with upstream's message when the path is not of the type
     */
    static void check(Path path, String type) throws IOException {
        if (type == null || type.isEmpty()) {
            return;
        }
        switch (type) {
            case "DirectoryOrCreate" -> {
                if (!Files.exists(path)) {
                    Files.createDirectories(path);
                    VolumeFiles.setMode(path, 0755);
                }
                requireDirectory(path);
            }
            case "Directory" -> requireDirectory(path);
            case "FileOrCreate" -> {
                if (!Files.exists(path)) {
                    try {
                        Files.createFile(path);
                        VolumeFiles.setMode(path, 0644);
                    } catch (FileAlreadyExistsException e) {
                        // Created meanwhile; checked below.
                    }
                }
                requireFile(path);
            }
            case "File" -> requireFile(path);
            case "Socket" -> requireType(path, VolumeFiles.SOCKET, "a socket file");
            case "CharDevice" -> requireType(path, VolumeFiles.CHARACTER_DEVICE, "a character device");
            case "BlockDevice" -> requireType(path, VolumeFiles.BLOCK_DEVICE, "a block device");
            default -> throw new IllegalArgumentException(type + " is an invalid volume type");
        }
    }

    private static void requireDirectory(Path path) {
        if (!Files.isDirectory(path)) {
            throw new IllegalArgumentException("hostPath type check failed: " + path + " is not a directory");
        }
    }

    private static void requireFile(Path path) {
        // Upstream's "is a file" means "exists and is not a directory".
        if (!Files.exists(path) || Files.isDirectory(path)) {
            throw new IllegalArgumentException("hostPath type check failed: " + path + " is not a file");
        }
    }

    private static void requireType(Path path, int type, String description) throws IOException {
        if (!Files.exists(path) || VolumeFiles.type(path) != type) {
            throw new IllegalArgumentException("hostPath type check failed: " + path + " is not " + description);
        }
    }
}
