package io.k4j.kubelet.volume;

/** Mount propagation of a container mount, as the pod's {@code mountPropagation} and CRI's enum of the same name. */
public enum MountPropagation {
    /** {@code None} in the pod spec; CRI {@code PROPAGATION_PRIVATE}. */
    PRIVATE,
    /** {@code HostToContainer}; CRI {@code PROPAGATION_HOST_TO_CONTAINER} (rslave). */
    HOST_TO_CONTAINER,
    /** {@code Bidirectional}, privileged containers only; CRI {@code PROPAGATION_BIDIRECTIONAL} (rshared). */
    BIDIRECTIONAL
}
