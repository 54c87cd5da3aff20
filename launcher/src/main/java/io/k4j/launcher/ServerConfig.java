package io.k4j.launcher;

import static java.util.Objects.requireNonNull;

import io.k4j.kubelet.eviction.Threshold;
import io.k4j.kubelet.images.ImageGcPolicy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Static configuration of {@code k4j server}, decided once from the flags (k3s keeps static configuration
 * apart from runtime state the same way).
 *
 * @param dataDirectory where the cluster lives
 * @param datastoreEndpoint empty for the embedded store, else e.g. {@code etcd://127.0.0.1:2379}
 * @param etcdCompactionInterval how often the apiserver compacts etcd's history (upstream's
 *     {@code --etcd-compaction-interval}, default 5m); zero leaves it to someone else. The embedded store compacts itself.
 * @param bindAddress the address the apiserver listens on
 * @param securePort the HTTPS port (6443)
 * @param advertiseAddress the address the cluster reaches the apiserver on (the {@code kubernetes} service's endpoint);
 *     empty when the host has no non-loopback address, in which case the endpoint is not published
 * @param tlsSubjectAlternativeNames extra host names or IPs for the serving certificate
 * @param tokenAuthFile a static token file (upstream CSV format), if any
 * @param serviceClusterIpRange the service CIDR; its first address is the {@code kubernetes} service's
 * @param serviceNodePortRange the ports NodePort services get, e.g. {@code 30000-32767}
 * @param writeKubeconfig also write the admin kubeconfig here when the file does not exist
 * @param clusterCidr the pod CIDR that node IPAM cuts each node's podCIDR from
 * @param controllers which controllers run, upstream's {@code --controllers} syntax ({@code *}, {@code foo}, {@code -foo})
 * @param nodeMonitorGracePeriod how long a node may be silent before the node lifecycle controller marks it unhealthy
 *     (upstream's {@code --node-monitor-grace-period})
 * @param schedulerConfig a {@code KubeSchedulerConfiguration} file, if any
 * @param simulatedNodes how many simulated (KWOK-like) nodes this server registers at start
 * @param simulatedNodeConfig a YAML file with the simulated nodes' capacity, labels, taints and pod timing, if any
 * @param verbosity upstream-style {@code -v} level
 * @param eventTtl how long an event lives after its last write (upstream's {@code --event-ttl}, default 1h)
 * @param clusterDns the {@code kube-dns} service's cluster IP that pods use as name server (upstream kubelet's
 *     {@code --cluster-dns}); empty for the 10th address of the service range, as kubeadm picks it
 * @param clusterDomain the cluster's DNS domain (upstream kubelet's {@code --cluster-domain})
 * @param clusterDnsBind where the cluster DNS server listens (UDP and TCP), until kube-proxy forwards the
 *     {@code kube-dns} service's port 53 there
 * @param disableAgent whether this server runs without a real node (k3s's {@code --disable-agent})
 * @param containerRuntimeEndpoint a CRI endpoint ({@code unix:///…}) to use instead of k4j's own containerd
 * @param nodeName the real node's name (default: the host name)
 * @param disableKubeProxy do not run kube-proxy even as root (k3s's {@code --disable-kube-proxy})
 * @param kubeletPort the port of the real node's kubelet server (upstream kubelet's {@code --port}, 10250)
 * @param cniBridge the Linux bridge the node's pods attach to ({@code cni0}); another name lets a second node share
 *     the host (tests)
 * @param kubeProxyNetworkNamespace a named network namespace ({@code ip netns}) kube-proxy programs instead of the
 *     host's, for tests that must not touch the host's tables
 * @param iptablesMinSyncPeriod kube-proxy's shortest time between two syncs (upstream's {@code --iptables-min-sync-period})
 * @param podManifestPath the static pods' manifest path (upstream kubelet's {@code --pod-manifest-path}; default
 *     {@code <data-dir>/agent/pod-manifests}, as k3s)
 * @param evictionHard the hard eviction thresholds in upstream's {@code --eviction-hard} syntax
 * @param imageGcPolicy when the node deletes unused images ({@code --image-gc-high-threshold},
 *     {@code --image-gc-low-threshold}, {@code --minimum-image-ttl-duration})
 */
public record ServerConfig(
        DataDirectory dataDirectory,
        Optional<String> datastoreEndpoint,
        Duration etcdCompactionInterval,
        InetAddress bindAddress,
        int securePort,
        Optional<String> advertiseAddress,
        List<String> tlsSubjectAlternativeNames,
        Optional<Path> tokenAuthFile,
        String serviceClusterIpRange,
        String serviceNodePortRange,
        Optional<Path> writeKubeconfig,
        String clusterCidr,
        List<String> controllers,
        Duration nodeMonitorGracePeriod,
        Optional<Path> schedulerConfig,
        int simulatedNodes,
        Optional<Path> simulatedNodeConfig,
        int verbosity,
        Duration eventTtl,
        Optional<String> clusterDns,
        String clusterDomain,
        InetSocketAddress clusterDnsBind,
        boolean disableAgent,
        Optional<String> containerRuntimeEndpoint,
        Optional<String> nodeName,
        int kubeletPort,
        String cniBridge,
        boolean disableKubeProxy,
        Optional<String> kubeProxyNetworkNamespace,
        Duration iptablesMinSyncPeriod,
        Optional<Path> podManifestPath,
        List<Threshold> evictionHard,
        ImageGcPolicy imageGcPolicy) {
    public ServerConfig {
        requireNonNull(dataDirectory, "dataDirectory is null");
        requireNonNull(datastoreEndpoint, "datastoreEndpoint is null");
        requireNonNull(etcdCompactionInterval, "etcdCompactionInterval is null");
        if (etcdCompactionInterval.isNegative()) {
            throw new IllegalArgumentException("--etcd-compaction-interval must not be negative: " + etcdCompactionInterval);
        }
        requireNonNull(bindAddress, "bindAddress is null");
        if (securePort < 0 || securePort > 65535) {
            throw new IllegalArgumentException("securePort out of range: " + securePort);
        }
        requireNonNull(advertiseAddress, "advertiseAddress is null");
        tlsSubjectAlternativeNames = List.copyOf(requireNonNull(tlsSubjectAlternativeNames, "tlsSubjectAlternativeNames is null"));
        requireNonNull(tokenAuthFile, "tokenAuthFile is null");
        requireNonNull(serviceClusterIpRange, "serviceClusterIpRange is null");
        requireNonNull(serviceNodePortRange, "serviceNodePortRange is null");
        requireNonNull(writeKubeconfig, "writeKubeconfig is null");
        requireNonNull(clusterCidr, "clusterCidr is null");
        controllers = List.copyOf(requireNonNull(controllers, "controllers is null"));
        requireNonNull(nodeMonitorGracePeriod, "nodeMonitorGracePeriod is null");
        if (nodeMonitorGracePeriod.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("--node-monitor-grace-period must be at least 1s, not " + nodeMonitorGracePeriod.toMillis() + "ms");
        }
        requireNonNull(schedulerConfig, "schedulerConfig is null");
        if (simulatedNodes < 0) {
            throw new IllegalArgumentException("simulatedNodes must not be negative: " + simulatedNodes);
        }
        requireNonNull(simulatedNodeConfig, "simulatedNodeConfig is null");
        requireNonNull(eventTtl, "eventTtl is null");
        requireNonNull(kubeProxyNetworkNamespace, "kubeProxyNetworkNamespace is null");
        requireNonNull(iptablesMinSyncPeriod, "iptablesMinSyncPeriod is null");
        if (eventTtl.isNegative() || eventTtl.isZero()) {
            throw new IllegalArgumentException("eventTtl must be positive: " + eventTtl);
        }
        requireNonNull(clusterDns, "clusterDns is null");
        requireNonNull(clusterDomain, "clusterDomain is null");
        requireNonNull(clusterDnsBind, "clusterDnsBind is null");
        requireNonNull(containerRuntimeEndpoint, "containerRuntimeEndpoint is null");
        if (kubeletPort <= 0 || kubeletPort > 65535) {
            throw new IllegalArgumentException("kubeletPort must be a port number: " + kubeletPort);
        }
        requireNonNull(cniBridge, "cniBridge is null");
        requireNonNull(nodeName, "nodeName is null");
        requireNonNull(podManifestPath, "podManifestPath is null");
        evictionHard = List.copyOf(requireNonNull(evictionHard, "evictionHard is null"));
        requireNonNull(imageGcPolicy, "imageGcPolicy is null");
    }
}
