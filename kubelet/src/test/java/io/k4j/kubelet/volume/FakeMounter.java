package io.k4j.kubelet.volume;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/** Remembers tmpfs mounts without mounting anything. Thread-safe. */
final class FakeMounter implements Mounter {
    private final Map<Path, OptionalLong> mounts = new LinkedHashMap<>();
    private final List<Path> unmounted = new ArrayList<>();

    @Override
    public synchronized void mountTmpfs(Path directory, OptionalLong sizeBytes) {
        mounts.put(directory.toAbsolutePath().normalize(), sizeBytes);
    }

    @Override
    public synchronized void unmount(Path directory) {
        mounts.remove(directory.toAbsolutePath().normalize());
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
