package io.k4j.launcher;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.k4j.apiserver.pki.CertificateAndKey;
import java.security.cert.X509Certificate;

/**
 * The credentials a real node runs with: from the cluster PKI for the server's own node, from the node join for an
 * agent. Either way the kubelet is {@code system:node:<name>} in {@code system:nodes}. Implementations are thread-safe
 * and own the clients they return (closing the identity closes them).
 */
interface NodeIdentity extends AutoCloseable {
    /** The kubelet's client ({@code system:node:<name>}). */
    KubernetesClient nodeClient();

    /** kube-proxy's client ({@code system:kube-proxy}). */
    KubernetesClient kubeProxyClient();

    /** The kubelet server's certificate, signed by the cluster CA, for the node's {@link NodeConfig#servingNames} and addresses. */
    CertificateAndKey kubeletServingCertificate();

    /** The cluster CA: it signs the apiserver's client certificate that the kubelet server accepts. */
    X509Certificate caCertificate();

    @Override
    void close();

    /** The server's own node: identities from the cluster PKI, through the server's component clients. */
    static NodeIdentity ofServer(ComponentClients clients, NodeConfig node) {
        return new NodeIdentity() {
            @Override
            public KubernetesClient nodeClient() {
                return clients.node(node.nodeName());
            }

            @Override
            public KubernetesClient kubeProxyClient() {
                return clients.kubeProxy();
            }

            @Override
            public CertificateAndKey kubeletServingCertificate() {
                return clients.pki().kubeletServingCertificate(node.nodeName(), node.servingNames(), node.servingAddresses());
            }

            @Override
            public X509Certificate caCertificate() {
                return clients.pki().caCertificate();
            }

            @Override
            public void close() {
                // The component clients belong to the server, which closes them.
            }
        };
    }
}
