package io.k4j.kubelet.volume;

import static java.util.Objects.requireNonNull;

/**
 * A volume could not be set up, with the Event upstream's kubelet records for it: reason {@code FailedMount},
 * message e.g. {@code MountVolume.SetUp failed for volume "cfg" : configmap "x" not found}. Transient: the pod stays
 * ContainerCreating and the worker retries the sync.
 */
public final class VolumeMountException extends Exception {
    /** Upstream's event reason for a volume that could not be set up. */
    public static final String FAILED_MOUNT = "FailedMount";

    private final String reason;

    public VolumeMountException(String reason, String message) {
        super(requireNonNull(message, "message is null"));
        this.reason = requireNonNull(reason, "reason is null");
    }

    public VolumeMountException(String reason, String message, Throwable cause) {
        super(requireNonNull(message, "message is null"), cause);
        this.reason = requireNonNull(reason, "reason is null");
    }

    /** The Event's reason, e.g. {@link #FAILED_MOUNT}; the Event's message is {@link #getMessage()}. */
    public String reason() {
        return reason;
    }
}
