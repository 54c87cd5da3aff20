package io.k4j.kubelet;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A real node's kubelet settings (a subset of upstream's KubeletConfiguration).
 *
 * @param nodeName the Node's name (the host name by default)
 * @param rootDirectory the kubelet's root ({@code <data-dir>/agent/kubelet}): pod directories under {@code pods/},
 *     container logs under {@code pods-logs/<namespace>_<name>_<uid>/<container>/<restartCount>.log}
 * @param nodeIps the node's addresses (InternalIP), first is the primary
 * @param clusterDns the cluster DNS server IPs given to ClusterFirst pods (empty: pods use the host's resolv.conf)
 * @param clusterDomain the cluster's DNS domain
 * @param resolvConf the host's resolv.conf, for dnsPolicy Default
 * @param systemReserved resources held back from allocatable for the system (cpu, memory, ephemeral-storage)
 * @param maxPods the pods capacity
 * @param syncFrequency how often every pod is synced even without events (upstream 1 min)
 * @param relistPeriod the PLEG relist period
 * @param labels extra node labels to register with
 * @param port the kubelet server's port, published in the Node's {@code daemonEndpoints}
 */
public record KubeletConfig(
        String nodeName,
        Path rootDirectory,
        List<String> nodeIps,
        List<String> clusterDns,
        String clusterDomain,
        Path resolvConf,
        Map<String, io.fabric8.kubernetes.api.model.Quantity> systemReserved,
        int maxPods,
        Duration syncFrequency,
        Duration relistPeriod,
        Map<String, String> labels,
        int port) {
    /** Upstream kubelet's {@code --port}. */
    public static final int DEFAULT_PORT = 10250;

    public KubeletConfig {
        requireNonNull(nodeName, "nodeName is null");
        requireNonNull(rootDirectory, "rootDirectory is null");
        nodeIps = List.copyOf(nodeIps);
        clusterDns = List.copyOf(clusterDns);
        requireNonNull(clusterDomain, "clusterDomain is null");
        requireNonNull(resolvConf, "resolvConf is null");
        systemReserved = Map.copyOf(systemReserved);
        requireNonNull(syncFrequency, "syncFrequency is null");
        requireNonNull(relistPeriod, "relistPeriod is null");
        labels = Map.copyOf(labels);
        if (port <= 0 || port > 65535) {
            throw new IllegalArgumentException("port must be a port number: " + port);
        }
        if (maxPods <= 0) {
            throw new IllegalArgumentException("maxPods must be positive: " + maxPods);
        }
    }

    /** Upstream's defaults for a node. */
    public static KubeletConfig defaults(String nodeName, Path rootDirectory, List<String> nodeIps,
            List<String> clusterDns) {
        return new KubeletConfig(nodeName, rootDirectory, nodeIps, clusterDns, "cluster.local",
                Path.of("/etc/resolv.conf"), Map.of(), 110, Duration.ofSeconds(10), Duration.ofSeconds(1), Map.of(), DEFAULT_PORT);
    }

    /** This configuration with the kubelet server on {@code newPort}. */
    public KubeletConfig withPort(int newPort) {
        return new KubeletConfig(nodeName, rootDirectory, nodeIps, clusterDns, clusterDomain, resolvConf, systemReserved,
                maxPods, syncFrequency, relistPeriod, labels, newPort);
    }

    /** This configuration with the cluster's DNS domain {@code newClusterDomain} (upstream's {@code --cluster-domain}). */
    public KubeletConfig withClusterDomain(String newClusterDomain) {
        return new KubeletConfig(nodeName, rootDirectory, nodeIps, clusterDns, newClusterDomain, resolvConf, systemReserved,
                maxPods, syncFrequency, relistPeriod, labels, port);
    }

    /** Where a pod's container logs go. */
    public Path podLogDirectory(String namespace, String name, String uid) {
        return rootDirectory.resolve("pods-logs").resolve(namespace + "_" + name + "_" + uid);
    }
}
