package io.k4j.kubelet.prober;

import java.util.Optional;

/**
 * Where probe workers read the current instance of a container each period (upstream's workers read the status
 * manager). kubelet-core implements it from its pod status cache. Implementations are thread-safe and fast (no
 * runtime call).
 */
@FunctionalInterface
public interface ContainerStates {
    /** The container's current instance, or empty when it has none yet (not created, or the pod is gone). */
    Optional<RunningContainer> container(String podUid, String containerName);
}
