package io.k4j.launcher;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.k4j.apiserver.pki.CertificateAndKey;
import io.k4j.apiserver.pki.ClusterPki;
import io.k4j.apiserver.pki.TlsContexts;
import io.k4j.kubelet.cri.RuntimeService;
import io.k4j.kubelet.server.ApiServerKubeletAuth;
import io.k4j.kubelet.server.CriStreamingRuntime;
import io.k4j.kubelet.server.KubeletServer;
import io.k4j.kubelet.server.KubeletServerConfig;
import io.k4j.kubelet.server.PodContainerLocator;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts a node's kubelet server (port {@link KubeletServerConfig#DEFAULT_PORT}) the way the launcher wires it: a serving
 * certificate from the cluster PKI for the node's names and addresses, client certificates verified against the
 * cluster CA, tokens and decisions checked with the apiserver as the node's identity, and exec/attach/port-forward
 * through the CRI runtime's streaming server. The node component calls {@link #start} once its runtime and pod state
 * exist and closes the result with the node.
 *
 * <p>Stateless and thread-safe.
 */
final class KubeletServers {
    /** How often a log follower rechecks its file when no change notice came. */
    private static final Duration FOLLOW_RECHECK = Duration.ofSeconds(1);

    private KubeletServers() {}

    /**
     * @param nodeClient the node's own client ({@code system:node:<name>}, which may create TokenReviews and
     *     SubjectAccessReviews)
     * @param hostName the node's host name (a DNS SAN)
     * @param addresses the node's addresses (IP SANs; the apiserver connects to the InternalIP), loopback is added
     * @param port the port to listen on; the node status must advertise it in {@code daemonEndpoints}
     */
    static KubeletServer start(ClusterPki pki, String nodeName, String hostName, List<InetAddress> addresses, int port,
            KubernetesClient nodeClient, PodContainerLocator locator, RuntimeService runtime, InstantSource clock) throws IOException {
        List<InetAddress> ipAddresses = new ArrayList<>(addresses);
        ipAddresses.add(InetAddress.getLoopbackAddress());
        CertificateAndKey serving = pki.kubeletServingCertificate(nodeName, List.of(hostName, "localhost"), ipAddresses);
        KubeletServerConfig config = new KubeletServerConfig(nodeName, InetAddress.getByName("0.0.0.0"), port,
                TlsContexts.serverContext(serving, List.of(pki.caCertificate())), FOLLOW_RECHECK);
        return KubeletServer.start(config, locator, new CriStreamingRuntime(runtime), new ApiServerKubeletAuth(nodeClient, clock), clock);
    }
}
