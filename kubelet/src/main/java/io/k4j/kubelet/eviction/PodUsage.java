package io.k4j.kubelet.eviction;

import static java.util.Objects.requireNonNull;

import java.util.Map;

/**
 * A pod's resource usage, per container by name, as the runtime reports it. Immutable.
 */
public record PodUsage(Map<String, ContainerUsage> containers) {
    public PodUsage {
        containers = Map.copyOf(requireNonNull(containers, "containers is null"));
    }

    /**
     * @param memoryWorkingSetBytes the container's memory working set
     * @param diskBytes its writable layer and logs
     * @param inodes the inodes its writable layer uses
     */
    public record ContainerUsage(long memoryWorkingSetBytes, long diskBytes, long inodes) {}

    /** The pod's total usage of a resource ({@code memory}, {@code ephemeral-storage}, {@code inodes}). */
    public long total(String resource) {
        return containers.values().stream().mapToLong(usage -> of(usage, resource)).sum();
    }

    static long of(ContainerUsage usage, String resource) {
        return switch (resource) {
            case "memory" -> usage.memoryWorkingSetBytes();
            case "ephemeral-storage" -> usage.diskBytes();
            case "inodes" -> usage.inodes();
            default -> throw new IllegalArgumentException("not an eviction resource: " + resource);
        };
    }
}
