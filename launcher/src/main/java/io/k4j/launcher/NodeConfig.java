package io.k4j.launcher;

import static java.util.Objects.requireNonNull;

import io.k4j.kubelet.eviction.Threshold;
import io.k4j.kubelet.images.ImageGcPolicy;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;

/**
 * Static configuration of one real node, the same whether {@code k4j server} runs it beside the control plane or
 * {@code k4j agent} runs it against a remote apiserver.
 *
 * @param directory where the node keeps its state (containerd, kubelet, images); {@code <data-dir>/agent} for the
 *     server's node, the agent's data directory for an agent
 * @param nodeName the node's name (lower case)
 * @param hostName the machine's host name (a name of the kubelet serving certificate)
 * @param addresses the node's addresses (its InternalIPs; the apiserver connects to the first)
 * @param containerRuntimeEndpoint a CRI endpoint ({@code unix:///…}) to use instead of k4j's own containerd
 * @param kubeletPort the port of the kubelet server (upstream kubelet's {@code --port}, 10250)
 * @param cniBridge the Linux bridge the node's pods attach to ({@code cni0})
 * @param disableKubeProxy do not run kube-proxy even as root
 * @param kubeProxyNetworkNamespace a named network namespace kube-proxy programs instead of the host's (tests)
 * @param iptablesMinSyncPeriod kube-proxy's shortest time between two syncs (upstream's {@code --iptables-min-sync-period})
 * @param clusterCidr the cluster's pod CIDR (kube-proxy tells pod traffic from outside traffic by it)
 * @param podManifestPath the static pods' manifests (default {@code pod-manifests} in {@code directory})
 * @param evictionHard the hard eviction thresholds
 * @param imageGcPolicy when the node deletes unused images
 * @param clusterDns the name servers ClusterFirst pods get: the kube-dns service's IP where kube-proxy programs this
 *     host's iptables (only then does that IP lead to the DNS server), else none (pods keep the host's resolv.conf,
 *     as upstream's kubelet without {@code --cluster-dns})
 * @param clusterDomain the cluster's DNS domain
 */
record NodeConfig(
        Path directory,
        String nodeName,
        String hostName,
        List<InetAddress> addresses,
        Optional<String> containerRuntimeEndpoint,
        int kubeletPort,
        String cniBridge,
        boolean disableKubeProxy,
        Optional<String> kubeProxyNetworkNamespace,
        Duration iptablesMinSyncPeriod,
        String clusterCidr,
        Optional<Path> podManifestPath,
        List<Threshold> evictionHard,
        ImageGcPolicy imageGcPolicy,
        List<String> clusterDns,
        String clusterDomain) {
    NodeConfig {
        requireNonNull(directory, "directory is null");
        requireNonNull(nodeName, "nodeName is null");
        requireNonNull(hostName, "hostName is null");
        addresses = List.copyOf(requireNonNull(addresses, "addresses is null"));
        if (addresses.isEmpty()) {
            throw new IllegalArgumentException("a node needs an address");
        }
        requireNonNull(containerRuntimeEndpoint, "containerRuntimeEndpoint is null");
        if (kubeletPort <= 0 || kubeletPort > 65535) {
            throw new IllegalArgumentException("kubeletPort must be a port number: " + kubeletPort);
        }
        requireNonNull(cniBridge, "cniBridge is null");
        requireNonNull(kubeProxyNetworkNamespace, "kubeProxyNetworkNamespace is null");
        if (requireNonNull(iptablesMinSyncPeriod, "iptablesMinSyncPeriod is null").isNegative()) {
            throw new IllegalArgumentException("iptablesMinSyncPeriod must not be negative: " + iptablesMinSyncPeriod);
        }
        requireNonNull(clusterCidr, "clusterCidr is null");
        requireNonNull(podManifestPath, "podManifestPath is null");
        evictionHard = List.copyOf(requireNonNull(evictionHard, "evictionHard is null"));
        requireNonNull(imageGcPolicy, "imageGcPolicy is null");
        clusterDns = List.copyOf(requireNonNull(clusterDns, "clusterDns is null"));
        requireNonNull(clusterDomain, "clusterDomain is null");
    }

    /** The server's own node: in {@code <data-dir>/agent}, on the advertise address (else the host's first address). */
    static NodeConfig forServer(ServerConfig config, String hostName) throws java.net.UnknownHostException {
        List<InetAddress> addresses = config.advertiseAddress().isPresent()
                ? List.of(InetAddress.getByName(config.advertiseAddress().get()))
                : defaultAddresses();
        return new NodeConfig(config.dataDirectory().root().resolve("agent"), config.nodeName().orElse(hostName).toLowerCase(java.util.Locale.ROOT),
                hostName, addresses, config.containerRuntimeEndpoint(), config.kubeletPort(), config.cniBridge(), config.disableKubeProxy(),
                config.kubeProxyNetworkNamespace(), config.iptablesMinSyncPeriod(), config.clusterCidr(), config.podManifestPath(), config.evictionHard(),
                config.imageGcPolicy(),
                KubeProxyComponent.programsHostTables(config.disableKubeProxy(), config.kubeProxyNetworkNamespace())
                        ? List.of(ClusterDnsComponent.serviceAddress(config, ServiceCidr.parse(config.serviceClusterIpRange())))
                        : List.of(),
                config.clusterDomain());
    }

    /** The host's first non-loopback IPv4 address, or loopback when it has none. */
    static List<InetAddress> defaultAddresses() {
        return HostAddresses.primary().map(List::of).orElse(List.of(InetAddress.getLoopbackAddress()));
    }

    /** The DNS names of the kubelet serving certificate. */
    List<String> servingNames() {
        return servingNames(hostName);
    }

    /** The IP addresses of the kubelet serving certificate: the node's, and loopback. */
    List<InetAddress> servingAddresses() {
        return servingAddresses(addresses);
    }

    /** The DNS names of the kubelet serving certificate of a node on {@code hostName}. */
    static List<String> servingNames(String hostName) {
        return List.copyOf(new LinkedHashSet<>(List.of(hostName.toLowerCase(java.util.Locale.ROOT), "localhost")));
    }

    /** The IP addresses of the kubelet serving certificate of a node on {@code addresses}: those and loopback. */
    static List<InetAddress> servingAddresses(List<InetAddress> addresses) {
        List<InetAddress> result = new ArrayList<>(addresses);
        result.add(InetAddress.getLoopbackAddress());
        return List.copyOf(new LinkedHashSet<>(result));
    }
}
