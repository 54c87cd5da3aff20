package io.k4j.launcher;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import io.k4j.apiserver.pki.CertificateAndKey;
import io.k4j.apiserver.pki.CertificateAuthority;
import io.k4j.apiserver.pki.ClusterPki;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Builds the API clients of in-process components, each authenticated by its own client certificate from the cluster
 * PKI, so that authorization sees {@code system:kube-scheduler}, {@code system:node:<name>} and so on exactly as it
 * would for separate processes. Closes every client it built. Thread-safe.
 */
final class ComponentClients implements AutoCloseable {
    private final String serverUrl;
    private final ClusterPki pki;
    private final List<KubernetesClient> clients = new ArrayList<>();

    ComponentClients(String serverUrl, ClusterPki pki) {
        this.serverUrl = requireNonNull(serverUrl, "serverUrl is null");
        this.pki = requireNonNull(pki, "pki is null");
    }

    /** The cluster CA certificate in PEM, which pods get in their namespace's {@code kube-root-ca.crt}. */
    String caCertificatePem() {
        return pki.caCertificatePem();
    }

    KubernetesClient controllerManager() {
        return client(pki.controllerManager());
    }

    KubernetesClient scheduler() {
        return client(pki.scheduler());
    }

    KubernetesClient kubeProxy() {
        return client(pki.kubeProxy());
    }

    /**
     * A client that acts as the service account {@code kube-system/<name>} of one controller, as upstream's
     * {@code --use-service-account-credentials}: its certificate names the service account's user and groups, so RBAC
     * applies the {@code system:controller:<name>} role. It reuses the controller manager's key (only signing, no key
     * generation, so two dozen controllers cost no start-up time).
     */
    KubernetesClient controllerServiceAccount(String name) {
        CertificateAndKey manager = pki.controllerManager();
        X509Certificate certificate = pki.authority().sign(manager.certificate().getPublicKey(),
                CertificateAuthority.subject("system:serviceaccount:kube-system:" + name, List.of("system:serviceaccounts", "system:serviceaccounts:kube-system")),
                KeyPurposeId.id_kp_clientAuth, List.of(), List.of(), ClusterPki.LEAF_VALIDITY);
        return client(new CertificateAndKey(certificate, manager.privateKey()));
    }

    KubernetesClient node(String nodeName) {
        return client(pki.nodeClientCertificate(nodeName));
    }

    /** A client with any identity the PKI holds. */
    synchronized KubernetesClient client(CertificateAndKey identity) {
        Config config = new ConfigBuilder(Config.empty())
                .withMasterUrl(serverUrl)
                .withCaCertData(base64(pki.caCertificatePem()))
                .withClientCertData(base64(identity.certificatePem()))
                .withClientKeyData(base64(identity.privateKeyPem()))
                .withClientKeyAlgo(identity.privateKey().getAlgorithm())
                .build();
        KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
        clients.add(client);
        return client;
    }

    private static String base64(String pem) {
        return Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public synchronized void close() {
        clients.forEach(KubernetesClient::close);
        clients.clear();
    }
}
