package io.k4j.launcher;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.k4j.apiserver.nodejoin.NodeCredentials;
import io.k4j.apiserver.pki.CertificateAndKey;
import io.k4j.apiserver.pki.Pem;
import io.k4j.controllerkit.informers.StreamingSerialization;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * The identity of a node that joined with {@code k4j agent}: the credentials the server handed out at the join, and
 * clients of the remote apiserver built from them. Thread-safe; closing it closes the clients it built.
 */
final class JoinedNodeIdentity implements NodeIdentity {
    private final String serverUrl;
    private final NodeCredentials credentials;
    private final List<KubernetesClient> clients = new ArrayList<>();

    JoinedNodeIdentity(String serverUrl, NodeCredentials credentials) {
        this.serverUrl = requireNonNull(serverUrl, "serverUrl is null");
        this.credentials = requireNonNull(credentials, "credentials is null");
    }

    @Override
    public KubernetesClient nodeClient() {
        return client(credentials.clientCertificate(), credentials.clientKey(), "kubelet");
    }

    @Override
    public KubernetesClient kubeProxyClient() {
        return client(credentials.kubeProxyCertificate(), credentials.kubeProxyKey(), "kube-proxy");
    }

    @Override
    public CertificateAndKey kubeletServingCertificate() {
        return pair(credentials.servingCertificate(), credentials.servingKey());
    }

    @Override
    public X509Certificate caCertificate() {
        return Pem.decodeCertificate(credentials.caCertificate());
    }

    private synchronized KubernetesClient client(String certificatePem, String keyPem, String component) {
        KubernetesClient client = ComponentClients.build(serverUrl, credentials.caCertificate(), pair(certificatePem, keyPem), OptionalInt.empty(), component, new JdkHttpClientFactory(),
                new StreamingSerialization(true));
        clients.add(client);
        return client;
    }

    private static CertificateAndKey pair(String certificatePem, String keyPem) {
        return new CertificateAndKey(Pem.decodeCertificate(certificatePem), Pem.decodePrivateKey(keyPem));
    }

    @Override
    public synchronized void close() {
        clients.forEach(KubernetesClient::close);
        clients.clear();
    }
}
