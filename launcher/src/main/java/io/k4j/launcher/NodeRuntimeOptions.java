package io.k4j.launcher;

import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The real node's runtime and networking flags, the same for {@code k4j server} and {@code k4j agent}: the CRI
 * endpoint, the kubelet server's port, and the bridge and network namespace that let several nodes share one host.
 */
final class NodeRuntimeOptions {
    @Option(names = "--container-runtime-endpoint",
            description = "The node's CRI endpoint (unix:///path); k4j starts and supervises its own containerd when absent.")
    String containerRuntimeEndpoint;

    @Option(names = "--kubelet-port", defaultValue = "10250", description = "The port of the node's kubelet server (default ${DEFAULT-VALUE}).")
    int kubeletPort;

    @Option(names = "--cni-bridge", hidden = true, defaultValue = "cni0",
            description = "The Linux bridge the node's pods attach to: another name lets a second node share the host (tests).")
    String cniBridge;

    @Option(names = "--kube-proxy-network-namespace", hidden = true,
            description = "Program the iptables of this named network namespace (ip netns) instead of the host's: for tests.")
    String kubeProxyNetworkNamespace;

    // Upstream's default is 1s; k4j's syncs write only what changed, so a shorter wait keeps a change's latency low
    // (see KubeProxy.Config.DEFAULT_MIN_SYNC_PERIOD).
    @Option(names = "--iptables-min-sync-period", defaultValue = "250ms", converter = GoDurationConverter.class,
            description = "kube-proxy's shortest time between two syncs of the iptables rules on average, as upstream kube-proxy's flag: "
                    + "changes within it are written together; 0 syncs on every change (default ${DEFAULT-VALUE}).")
    Duration iptablesMinSyncPeriod;

    /** The CRI endpoint given, if any (a blank one counts as none). */
    Optional<String> containerRuntimeEndpoint() {
        return Optional.ofNullable(containerRuntimeEndpoint).filter(endpoint -> !endpoint.isBlank());
    }

    int kubeletPort() {
        return kubeletPort;
    }

    String cniBridge() {
        return cniBridge;
    }

    Optional<String> kubeProxyNetworkNamespace() {
        return Optional.ofNullable(kubeProxyNetworkNamespace);
    }

    Duration iptablesMinSyncPeriod() {
        return iptablesMinSyncPeriod;
    }
}
