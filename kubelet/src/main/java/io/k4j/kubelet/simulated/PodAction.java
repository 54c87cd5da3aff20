package io.k4j.kubelet.simulated;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.PodStatus;
import java.time.Instant;
import java.util.Optional;

/** What the simulated kubelet does next for one pod, as decided by {@link PodLifecycle}. Immutable. */
sealed interface PodAction {
    /** The pod is where it should be. */
    record Nothing() implements PodAction {}

    /** Write this status (Running, restarted containers, or a terminal phase). */
    record UpdateStatus(PodStatus status, String reason) implements PodAction {
        public UpdateStatus {
            requireNonNull(status, "status is null");
            requireNonNull(reason, "reason is null");
        }
    }

    /** Look again at this time (containers exit then). */
    record WaitUntil(Instant time) implements PodAction {
        public WaitUntil {
            requireNonNull(time, "time is null");
        }
    }

    /**
     * The pod is being deleted: write its final status first when it has running containers, then delete it with
     * grace period 0 as the kubelet's final delete does.
     */
    record Delete(Optional<PodStatus> finalStatus) implements PodAction {
        public Delete {
            requireNonNull(finalStatus, "finalStatus is null");
        }
    }
}
