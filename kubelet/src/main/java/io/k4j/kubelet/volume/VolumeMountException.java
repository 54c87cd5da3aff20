package io.k4j.kubelet.volume;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * A volume could not be set up, with the Event upstream's kubelet records for it: reason {@code FailedMount},
 * message e.g. {@code MountVolume.SetUp failed for volume "cfg" : configmap "x" not found}. Transient: the pod stays
 * ContainerCreating and the worker retries the sync.
 */
public final class VolumeMountException extends Exception {
    /** Upstream's event reason for a volume that could not be set up. */
    public static final String FAILED_MOUNT = "FailedMount";

    private final String reason;
    private final List<String> unmountedVolumes;

    public VolumeMountException(String reason, String message) {
        this(reason, message, null, List.of());
    }

    public VolumeMountException(String reason, String message, Throwable cause) {
        this(reason, message, cause, List.of());
    }

    /**
     * @param unmountedVolumes the names of all the pod's volumes that could not be set up (the message is about the
     *     first)
     */
    public VolumeMountException(String reason, String message, Throwable cause, List<String> unmountedVolumes) {
        super(requireNonNull(message, "message is null"), cause);
        this.reason = requireNonNull(reason, "reason is null");
        this.unmountedVolumes = List.copyOf(unmountedVolumes);
    }

    /**
     * The names of the volumes that are not ready, in the pod's order: what upstream's
     * {@code Unable to attach or mount volumes: unmounted volumes=[…]} event lists once the pod has waited too long.
     */
    public List<String> unmountedVolumes() {
        return unmountedVolumes;
    }

    /** The Event's reason, e.g. {@link #FAILED_MOUNT}; the Event's message is {@link #getMessage()}. */
    public String reason() {
        return reason;
    }
}
