package io.k4j.kubelet.eviction;

import static java.util.Objects.requireNonNull;

import io.k4j.kubelet.host.HostCommand;
import io.k4j.kubelet.nodestatus.HostResources;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Observes the signals on this host: memory from {@code /proc/meminfo} (MemAvailable of MemTotal), the node file
 * system where the kubelet's root is, the image file system where the runtime keeps its images (as the runtime
 * reports it), and the inodes of both through {@code stat --file-system} (the JDK does not give inode counts).
 * Thread-safe.
 */
public final class HostSignalObserver implements SignalObserver {
    private static final Logger log = LoggerFactory.getLogger(HostSignalObserver.class);

    private final Path nodefs;
    private final Supplier<Optional<Path>> imagefs;

    /**
     * @param nodefs a path on the node file system (the kubelet's root)
     * @param imagefs a path on the image file system, if the runtime says where
     */
    public HostSignalObserver(Path nodefs, Supplier<Optional<Path>> imagefs) {
        this.nodefs = requireNonNull(nodefs, "nodefs is null");
        this.imagefs = requireNonNull(imagefs, "imagefs is null");
    }

    @Override
    public Map<Signal, Observation> observe() {
        Map<Signal, Observation> observations = new EnumMap<>(Signal.class);
        long memory = HostResources.memoryBytes();
        if (memory > 0) {
            observations.put(Signal.MEMORY_AVAILABLE, new Observation(HostResources.memoryAvailableBytes(), memory));
        }
        filesystem(nodefs, observations, Signal.NODEFS_AVAILABLE, Signal.NODEFS_INODES_FREE);
        Path images = imagefs.get().orElse(nodefs);
        filesystem(images, observations, Signal.IMAGEFS_AVAILABLE, Signal.IMAGEFS_INODES_FREE);
        return observations;
    }

    private static void filesystem(Path path, Map<Signal, Observation> observations, Signal bytes, Signal inodes) {
        long capacity = HostResources.storageBytes(path);
        if (capacity > 0) {
            observations.put(bytes, new Observation(HostResources.storageAvailableBytes(path), capacity));
        }
        inodes(path).ifPresent(observation -> observations.put(inodes, observation));
    }

    /** Free and total inodes of the file system holding {@code path}; empty where it has none (btrfs reports 0). */
    static Optional<Observation> inodes(Path path) {
        try {
            HostCommand.Result result = HostCommand.run(List.of("stat", "--file-system", "--format", "%d %c", path.toString()),
                    Duration.ofSeconds(10));
            if (result.exitCode() != 0) {
                log.debug("stat --file-system {} failed: {}", path, result.output());
                return Optional.empty();
            }
            String[] fields = result.output().split("\\s+");
            long free = Long.parseLong(fields[0]);
            long total = Long.parseLong(fields[1]);
            return total > 0 ? Optional.of(new Observation(free, total)) : Optional.empty();
        }
        catch (IOException | NumberFormatException | ArrayIndexOutOfBoundsException e) {
            log.debug("Counting the inodes of {} failed: {}", path, e.toString());
            return Optional.empty();
        }
    }
}
