package io.k4j.kubelet.kuberuntime;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * What a pod sync did not achieve: containers that wait (with upstream's reason) and when the pod should be synced
 * again at the latest (a backoff ends). Immutable.
 *
 * @param waiting waiting reasons by container name, for containers the sync tried and failed to start
 * @param started container names started by this sync (their earlier waiting reasons are void)
 * @param requeueAt when to sync again even without an event
 * @param initFailed an init container failed and will not be restarted: the pod failed
 */
public record SyncOutcome(Map<String, ContainerWaiting> waiting, java.util.Set<String> started,
        Optional<Instant> requeueAt, boolean initFailed) {
    public SyncOutcome {
        waiting = Map.copyOf(waiting);
        started = java.util.Set.copyOf(started);
        requireNonNull(requeueAt, "requeueAt is null");
    }
}
