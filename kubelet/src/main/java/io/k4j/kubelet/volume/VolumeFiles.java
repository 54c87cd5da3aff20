package io.k4j.kubelet.volume;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/** File helpers the volume plugins share: Unix modes and groups, and deletion that never follows a symlink. */
final class VolumeFiles {
    static final int TYPE_MASK = 0170000;
    static final int SOCKET = 0140000;
    static final int CHARACTER_DEVICE = 0020000;
    static final int BLOCK_DEVICE = 0060000;

    private VolumeFiles() {}

    /** The permission bits (including setuid, setgid and sticky) of a file, not following a final symlink. */
    static int mode(Path path) throws IOException {
        return (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
    }

    /** The file type bits of {@code st_mode}, following symlinks as upstream's hostPath type checks do. */
    static int type(Path path) throws IOException {
        return (Integer) Files.getAttribute(path, "unix:mode") & TYPE_MASK;
    }

    static void setMode(Path path, int mode) throws IOException {
        Files.setAttribute(path, "unix:mode", mode, LinkOption.NOFOLLOW_LINKS);
    }

    static void setGroup(Path path, int groupId) throws IOException {
        Files.setAttribute(path, "unix:gid", groupId, LinkOption.NOFOLLOW_LINKS);
    }

    /** Deletes a file or a directory tree; symlinks are deleted, never followed. A missing path is fine. */
    static void deleteRecursively(Path path) throws IOException {
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (!Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
            Files.deleteIfExists(path);
            return;
        }
        Files.walkFileTree(path, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException failure) throws IOException {
                if (failure instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw failure;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path directory, IOException failure) throws IOException {
                if (failure != null && !(failure instanceof NoSuchFileException)) {
                    throw failure;
                }
                Files.deleteIfExists(directory);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
