package io.k4j.launcher;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.k4j.apiserver.pki.CertificateAndKey;
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
import java.util.List;

/**
 * Starts a node's kubelet server (port {@link KubeletServerConfig#DEFAULT_PORT}) the way the launcher wires it: the node
 * identity's serving certificate (signed by the cluster CA, for the node's names and addresses), client certificates verified against the
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
     * @param identity the node's credentials: its serving certificate and the cluster CA
     * @param port the port to listen on; the node status must advertise it in {@code daemonEndpoints}
     */
    static KubeletServer start(NodeIdentity identity, String nodeName, int port,
            KubernetesClient nodeClient, PodContainerLocator locator, RuntimeService runtime, InstantSource clock) throws IOException {
        CertificateAndKey serving = identity.kubeletServingCertificate();
        KubeletServerConfig config = new KubeletServerConfig(nodeName, InetAddress.getByName("0.0.0.0"), port,
                TlsContexts.serverContext(serving, List.of(identity.caCertificate())), FOLLOW_RECHECK);
        return KubeletServer.start(config, locator, new CriStreamingRuntime(runtime), new ApiServerKubeletAuth(nodeClient, clock), clock);
    }
}
