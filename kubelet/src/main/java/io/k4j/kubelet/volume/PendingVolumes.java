package io.k4j.kubelet.volume;

/**
 * A pod's volumes while they are being set up beside the runtime's work on its sandbox: the sandbox (network
 * namespace, pause container, CNI) needs no volume, so only the containers wait for them.
 */
@FunctionalInterface
public interface PendingVolumes {
    /**
     * Waits until the volumes are set up.
     *
     * @throws VolumeMountException when a volume could not be set up; no container of the pod may start then
     */
    PodVolumes await() throws VolumeMountException;

    /** Volumes that are already set up. */
    static PendingVolumes of(PodVolumes volumes) {
        return () -> volumes;
    }
}
