package io.k4j.dns;

import static java.util.Objects.requireNonNull;

import io.k4j.dns.server.DnsServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * How the cluster DNS server runs.
 *
 * @param clusterDomain the zone it is authoritative for (upstream's {@code --cluster-domain}, {@code cluster.local})
 * @param bindAddress where it listens (UDP and TCP); port 0 picks a free one
 * @param nodeBindAddress a second place it listens, one that pods can reach (the node's address): the endpoint behind
 *     the {@code kube-dns} service, where kube-proxy sends the service's port 53; port 0 picks a free one
 * @param upstreams where names outside the cluster go (by default the node's {@code /etc/resolv.conf} name servers)
 * @param forwardTimeout how long one upstream may take before the next is tried
 * @param ttl the TTL of the cluster's records (CoreDNS's kubernetes plugin: 5 s)
 * @param serviceAddress the {@code kube-dns} service's cluster IP, served as {@code ns.dns.<zone>}
 * @param limits the server's concurrency limits
 */
public record ClusterDnsConfig(
        String clusterDomain,
        InetSocketAddress bindAddress,
        Optional<InetSocketAddress> nodeBindAddress,
        List<InetSocketAddress> upstreams,
        Duration forwardTimeout,
        Duration ttl,
        Optional<InetAddress> serviceAddress,
        DnsServer.Limits limits) {
    /** CoreDNS's kubernetes plugin default TTL. */
    public static final Duration DEFAULT_TTL = Duration.ofSeconds(5);
    /** CoreDNS's forward plugin gives up on an upstream after a few seconds; 2 s keeps under a stub resolver's 5 s. */
    public static final Duration DEFAULT_FORWARD_TIMEOUT = Duration.ofSeconds(2);

    public ClusterDnsConfig {
        requireNonNull(clusterDomain, "clusterDomain is null");
        requireNonNull(bindAddress, "bindAddress is null");
        requireNonNull(nodeBindAddress, "nodeBindAddress is null");
        upstreams = List.copyOf(requireNonNull(upstreams, "upstreams is null"));
        requireNonNull(forwardTimeout, "forwardTimeout is null");
        requireNonNull(ttl, "ttl is null");
        if (ttl.isNegative()) {
            throw new IllegalArgumentException("ttl must not be negative: " + ttl);
        }
        requireNonNull(serviceAddress, "serviceAddress is null");
        requireNonNull(limits, "limits is null");
    }
}
