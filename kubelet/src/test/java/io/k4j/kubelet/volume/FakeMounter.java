package io.k4j.kubelet.volume;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/** Remembers tmpfs mounts without mounting anything; bind mounts become symlinks. Thread-safe. */
final class FakeMounter implements Mounter {
    private final Map<Path, OptionalLong> mounts = new LinkedHashMap<>();
    private final List<Path> unmounted = new ArrayList<>();
    private final java.util.Set<Path> binds = new java.util.HashSet<>();

    @Override
    public synchronized void mountTmpfs(Path directory, OptionalLong sizeBytes) {
        mounts.put(directory.toAbsolutePath().normalize(), sizeBytes);
    }

    /** Stands in for a bind mount with a symlink, so that the target shows the source's file key as a mount would. */
    @Override
    public synchronized void bindMount(Path source, Path target) throws java.io.IOException {
        VolumeFiles.deleteRecursively(target);
        java.nio.file.Files.createSymbolicLink(target, source);
        mounts.put(target.toAbsolutePath().normalize(), OptionalLong.empty());
        binds.add(target.toAbsolutePath().normalize());
    }

    @Override
    public synchronized void unmount(Path directory) throws java.io.IOException {
        Path path = directory.toAbsolutePath().normalize();
        mounts.remove(path);
        if (binds.remove(path)) {
            java.nio.file.Files.deleteIfExists(path);
        }
        unmounted.add(directory);
    }

    @Override
    public synchronized List<Path> mountPointsUnder(Path directory) {
        Path root = directory.toAbsolutePath().normalize();
        List<Path> under = new ArrayList<>(mounts.keySet().stream().filter(path -> path.startsWith(root)).toList());
        under.sort(Comparator.comparingInt(Path::getNameCount).reversed());
        return under;
    }

    synchronized Map<Path, OptionalLong> mounts() {
        return Map.copyOf(mounts);
    }

    synchronized List<Path> unmounted() {
        return List.copyOf(unmounted);
    }
}
