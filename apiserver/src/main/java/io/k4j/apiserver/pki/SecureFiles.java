package io.k4j.apiserver.pki;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/** Writes files atomically with the permissions decided at creation, so a key is never briefly world-readable. */
final class SecureFiles {
    static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    static final Set<PosixFilePermission> WORLD_READABLE = PosixFilePermissions.fromString("rw-r--r--");
    private static final Set<PosixFilePermission> OWNER_ONLY_DIRECTORY = PosixFilePermissions.fromString("rwx------");

    private SecureFiles() {}

    static void createDirectory(Path directory) {
        try {
            if (Files.isDirectory(directory)) {
                return;
            }
            if (supportsPosix(directory)) {
                Files.createDirectories(directory, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIRECTORY));
            } else {
                Files.createDirectories(directory);
            }
        } catch (FileAlreadyExistsException e) {
            // another process created it first; fine
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + directory, e);
        }
    }

    /** Writes {@code content} to {@code file} through a temporary file and an atomic rename. */
    static void write(Path file, String content, Set<PosixFilePermission> permissions) {
        Path directory = file.toAbsolutePath().getParent();
        Path temporary = null;
        try {
            temporary = supportsPosix(directory)
                    ? Files.createTempFile(directory, "." + file.getFileName(), ".tmp", PosixFilePermissions.asFileAttribute(permissions))
                    : Files.createTempFile(directory, "." + file.getFileName(), ".tmp");
            Files.writeString(temporary, content, StandardCharsets.UTF_8);
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        } finally {
            if (temporary != null) {
                try {
                    Files.deleteIfExists(temporary);
                } catch (IOException ignored) {
                    // best effort: the rename normally consumed it
                }
            }
        }
    }

    static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    private static boolean supportsPosix(Path path) {
        return path.getFileSystem().supportedFileAttributeViews().contains("posix");
    }
}
