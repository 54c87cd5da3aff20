package io.k4j.kubelet.eviction;

import java.util.Arrays;
import java.util.Optional;

/**
 * The eviction signals the kubelet observes, with upstream's names, the resource each starves and its node condition.
 * Immutable.
 */
public enum Signal {
    MEMORY_AVAILABLE("memory.available", "memory", "MemoryPressure"),
    NODEFS_AVAILABLE("nodefs.available", "ephemeral-storage", "DiskPressure"),
    NODEFS_INODES_FREE("nodefs.inodesFree", "inodes", "DiskPressure"),
    IMAGEFS_AVAILABLE("imagefs.available", "ephemeral-storage", "DiskPressure"),
    IMAGEFS_INODES_FREE("imagefs.inodesFree", "inodes", "DiskPressure");

    private final String signalName;
    private final String resource;
    private final String nodeCondition;

    Signal(String signalName, String resource, String nodeCondition) {
        this.signalName = signalName;
        this.resource = resource;
        this.nodeCondition = nodeCondition;
    }

    /** Upstream's name, as in {@code --eviction-hard}. */
    public String signalName() {
        return signalName;
    }

    /** The resource a pod is evicted to reclaim ({@code memory}, {@code ephemeral-storage}, {@code inodes}). */
    public String resource() {
        return resource;
    }

    /** The node condition the signal sets ({@code MemoryPressure} or {@code DiskPressure}). */
    public String nodeCondition() {
        return nodeCondition;
    }

    public static Optional<Signal> of(String signalName) {
        return Arrays.stream(values()).filter(signal -> signal.signalName.equals(signalName)).findFirst();
    }
}
