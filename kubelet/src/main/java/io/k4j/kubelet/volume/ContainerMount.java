package io.k4j.kubelet.volume;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;

/**
 * One bind mount of a container, as CRI's {@code Mount}: a host path (directory or file) at a path inside the
 * container.
 *
 * @param containerPath the absolute path inside the container
 * @param hostPath the absolute path on the host
 * @param readOnly whether the container sees it read-only
 * @param propagation the mount propagation (CRI's {@code MountPropagation})
 */
public record ContainerMount(String containerPath, Path hostPath, boolean readOnly, MountPropagation propagation) {
    public ContainerMount {
        requireNonNull(containerPath, "containerPath is null");
        requireNonNull(hostPath, "hostPath is null");
        requireNonNull(propagation, "propagation is null");
    }
}
