package io.k4j.kubelet.volume;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

/**
 * The host's mount table, as far as volumes need it: tmpfs mounts for memory-backed emptyDirs and secret-like
 * volumes, bind mounts for subPaths. {@link SystemMounter} runs {@code mount}/{@code umount}; tests use a hand-written fake. Implementations
 * are thread-safe.
 */
public interface Mounter {
    /**
     * Mounts a tmpfs on {@code directory} (which exists).
     *
     * @param sizeBytes the tmpfs size, or empty for the kernel's default (half the RAM)
     */
    void mountTmpfs(Path directory, OptionalLong sizeBytes) throws IOException;

    /**
     * Bind-mounts {@code source} (a file or directory) on {@code target} (an existing file or directory of the same
     * kind), as upstream pins a subPath before the runtime sees it.
     */
    void bindMount(Path source, Path target) throws IOException;

    /** Unmounts whatever is mounted on {@code directory}. */
    void unmount(Path directory) throws IOException;

    /** The mount points at or below {@code directory}, deepest first (the order to unmount them). */
    List<Path> mountPointsUnder(Path directory) throws IOException;

    /** Whether something is mounted on {@code directory} itself (which exists). */
    default boolean isMountPoint(Path directory) throws IOException {
        Path absolute = directory.toAbsolutePath().normalize();
        return mountPointsUnder(absolute).contains(absolute);
    }
}
