package io.k4j.proxy;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.List;

/**
 * What one sync of the proxier did: whether it was full, how many service ports it programmed, how long the whole sync
 * and its {@code iptables-restore} took (zero when nothing changed and iptables was not called), and the network
 * programming latency of each endpoint change it put in place. Immutable.
 */
public record SyncResult(boolean full, int servicePorts, Duration elapsed, Duration restore, List<ProgrammingLatency> programmingLatencies) {
    public SyncResult {
        requireNonNull(elapsed, "elapsed is null");
        requireNonNull(restore, "restore is null");
        programmingLatencies = List.copyOf(programmingLatencies);
    }

    /**
     * Upstream's network programming latency ({@code kubeproxy_network_programming_duration_seconds}) of one change:
     * from the change's trigger time (the EndpointSlice's {@code endpoints.kubernetes.io/last-change-trigger-time}) to
     * the moment its rules were in place.
     *
     * @param service the slice's service, {@code namespace/name}
     */
    public record ProgrammingLatency(String service, Duration latency) {
        public ProgrammingLatency {
            requireNonNull(service, "service is null");
            requireNonNull(latency, "latency is null");
        }
    }
}
