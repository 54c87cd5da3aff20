package io.k4j.kubelet.prober;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.List;

/**
 * The current instance of a container as the pod worker knows it, what a probe worker needs each period.
 *
 * @param containerId the runtime's container ID (a new ID is a new instance: its probe results start over)
 * @param running whether the container is running (probes only run against running containers)
 * @param startedAt when it started, for initialDelaySeconds
 * @param podIps the pod's IPs; an HTTP/TCP/gRPC probe without a host targets the first
 */
public record RunningContainer(String containerId, boolean running, Instant startedAt, List<String> podIps) {
    public RunningContainer {
        requireNonNull(containerId, "containerId is null");
        requireNonNull(startedAt, "startedAt is null");
        podIps = List.copyOf(podIps);
    }
}
