package io.k4j.launcher;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The layout of a k4j data directory: everything one cluster keeps between runs, so that a second start on the
 * same directory continues the same cluster.
 *
 * @param root the directory itself
 */
public record DataDirectory(Path root) {
    public DataDirectory {
        requireNonNull(root, "root is null");
        root = root.toAbsolutePath().normalize();
    }

    /** {@code /var/lib/k4j} for root, {@code ~/.k4j} for anybody else (as k3s does with /var/lib/rancher). */
    public static DataDirectory defaultLocation() {
        boolean root = "root".equals(System.getProperty("user.name"));
        return new DataDirectory(root ? Path.of("/var/lib/k4j") : Path.of(System.getProperty("user.home"), ".k4j"));
    }

    public Path databaseFile() {
        return root.resolve("db").resolve("state.db");
    }

    public Path pkiDirectory() {
        return root.resolve("pki");
    }

    /** Native libraries the program keeps between runs (see {@link SqliteNativeLibrary}). */
    public Path nativeLibraryDirectory() {
        return root.resolve("lib");
    }

    /** The token nodes join the cluster with ({@code k4j agent --token}), as k3s's {@code server/node-token}. */
    public Path nodeToken() {
        return root.resolve("token");
    }

    public Path adminKubeconfig() {
        return root.resolve("admin.kubeconfig");
    }

    /** Creates the directories with owner-only permissions where the file system supports them. */
    public DataDirectory create() {
        try {
            for (Path directory : new Path[] {root, databaseFile().getParent(), pkiDirectory()}) {
                Files.createDirectories(directory);
                try {
                    Files.setPosixFilePermissions(directory, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
                } catch (UnsupportedOperationException ignored) {
                    // Not a POSIX file system: nothing to restrict.
                }
            }
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create data directory " + root + ": " + e.getMessage(), e);
        }
    }
}
