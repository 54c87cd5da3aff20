package io.k4j.kubelet.kuberuntime;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.List;

/**
 * One sandbox of a pod as the runtime reports it.
 *
 * @param attempt the sandbox's attempt number (0 for the first sandbox of the pod, +1 for each re-creation)
 * @param ips the pod IPs, empty when not ready or host network
 */
public record SandboxRuntimeStatus(String id, int attempt, boolean ready, Instant createdAt, List<String> ips) {
    public SandboxRuntimeStatus {
        requireNonNull(id, "id is null");
        requireNonNull(createdAt, "createdAt is null");
        ips = List.copyOf(ips);
    }
}
