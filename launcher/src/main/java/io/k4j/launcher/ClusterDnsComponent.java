package io.k4j.launcher;

import static java.util.Objects.requireNonNull;

import io.k4j.dns.ClusterDns;
import io.k4j.dns.ClusterDnsConfig;
import io.k4j.dns.records.IpAddresses;
import io.k4j.dns.server.DnsServer;
import io.k4j.dns.server.ResolvConf;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster DNS inside {@code k4j server}, standing in for upstream's CoreDNS addon: it reads Services and
 * EndpointSlices as {@code kube-system/coredns} and answers on {@code --cluster-dns-bind}, forwarding other names to
 * the node's resolvers from {@code /etc/resolv.conf}. Pods name the {@code kube-dns} service's IP
 * ({@code --cluster-dns}) as their server. Besides the bind address (for the host) it listens on the node's address
 * ({@code --advertise-address}) at the same port and publishes that address as the endpoints of the selector-less
 * {@code kube-dns} service ({@link ClusterDnsEndpoints}), so kube-proxy DNATs the service's port 53 (UDP and TCP) to it
 * on every node, as it would to CoreDNS pods. Every server runs one (no leader election: DNS serves reads only).
 */
final class ClusterDnsComponent implements Component {
    private static final Logger LOG = LoggerFactory.getLogger("dns");
    /** The user the cluster DNS authenticates as, bound to {@code system:coredns}. */
    static final String USER = "system:serviceaccount:kube-system:coredns";
    private static final Path RESOLV_CONF = Path.of("/etc/resolv.conf");
    /** CoreDNS waits this long for its first lists before it serves anyway. */
    private static final Duration CACHE_SYNC_TIMEOUT = Duration.ofSeconds(5);

    private final ServerConfig config;
    private final ComponentClients clients;
    private ClusterDns dns;

    ClusterDnsComponent(ServerConfig config, ComponentClients clients) {
        this.config = requireNonNull(config, "config is null");
        this.clients = requireNonNull(clients, "clients is null");
    }

    @Override
    public String name() {
        return "cluster-dns";
    }

    @Override
    public void start() throws Exception {
        InetSocketAddress bind = config.clusterDnsBind();
        // Never forward to ourselves: a node whose resolv.conf names the bind address would loop every query.
        List<InetSocketAddress> upstreams = ResolvConf.nameServers(RESOLV_CONF).stream()
                .filter(upstream -> !(upstream.getPort() == bind.getPort() && upstream.getAddress().equals(bind.getAddress())))
                .toList();
        String serviceAddress = serviceAddress(config, ServiceCidr.parse(config.serviceClusterIpRange()));
        Optional<InetAddress> nodeAddress = nodeAddress(config);
        Optional<InetSocketAddress> nodeBind = nodeAddress
                .filter(address -> !bind.getAddress().isAnyLocalAddress() && !bind.getAddress().equals(address))
                .map(address -> new InetSocketAddress(address, bind.getPort()));
        ClusterDnsConfig dnsConfig = new ClusterDnsConfig(config.clusterDomain(), bind, nodeBind, upstreams,
                ClusterDnsConfig.DEFAULT_FORWARD_TIMEOUT, ClusterDnsConfig.DEFAULT_TTL, IpAddresses.parse(serviceAddress),
                DnsServer.Limits.defaults());
        dns = new ClusterDns(clients.coreDns(), dnsConfig, InstantSource.system());
        dns.start(CACHE_SYNC_TIMEOUT);
        // Where pods reach the server: its second listener, or the bind address itself when that is the node's.
        Optional<InetSocketAddress> podFacing = dns.nodeAddress()
                .or(() -> nodeAddress.map(address -> new InetSocketAddress(address, dns.address().getPort())));
        if (podFacing.isEmpty()) {
            LOG.warn("the host has no non-loopback address: pods cannot reach the cluster DNS; pass --advertise-address");
        } else {
            try {
                new ClusterDnsEndpoints(clients.controllerServiceAccount("endpoint-controller"),
                        clients.controllerServiceAccount("endpointslice-controller")).publish(podFacing.get());
            } catch (RuntimeException e) {
                // The DNS still serves the host; the next start publishes again.
                LOG.warn("cannot publish the kube-dns endpoints at {}: {}", podFacing.get(), e.getMessage());
            }
        }
        LOG.info("cluster DNS for {} on {}, for pods on {} (behind the kube-dns service {}:53), upstream {}",
                config.clusterDomain(), dns.address(), podFacing.map(InetSocketAddress::toString).orElse("nothing"),
                serviceAddress, upstreams);
    }

    /** The node's address that pods reach: {@code --advertise-address}, by default the host's primary address. */
    private static Optional<InetAddress> nodeAddress(ServerConfig config) {
        return config.advertiseAddress().flatMap(IpAddresses::parse);
    }

    @Override
    public void close() {
        if (dns != null) {
            dns.close();
        }
    }

    /** {@code --cluster-dns}, or the 10th address of the service range. */
    static String serviceAddress(ServerConfig config, ServiceCidr serviceCidr) {
        return config.clusterDns().orElseGet(() -> serviceCidr.address(10).getHostAddress());
    }

    /** Parses {@code host:port} or {@code [v6]:port} (an IP literal, never looked up). */
    static InetSocketAddress parseBindAddress(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("--cluster-dns-bind must be address:port, got " + text);
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        Optional<InetAddress> address = IpAddresses.parse(host);
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--cluster-dns-bind must be address:port, got " + text, e);
        }
        if (address.isEmpty() || port < 0 || port > 65535) {
            throw new IllegalArgumentException("--cluster-dns-bind must be an IP address and a port, got " + text);
        }
        return new InetSocketAddress(address.get(), port);
    }
}
