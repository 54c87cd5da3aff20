package io.k4j.launcher;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.k4j.apiserver.authorization.rbac.BootstrapPolicy;
import io.k4j.apiserver.pki.CertificateAndKey;
import io.k4j.apiserver.pki.ClusterPki;
import java.nio.charset.StandardCharsets;
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

    KubernetesClient controllerManager() {
        return client(pki.controllerManager());
    }

    KubernetesClient scheduler() {
        return client(pki.scheduler());
    }

    KubernetesClient kubeProxy() {
        return client(pki.kubeProxy());
    }

    /** The one identity all simulated nodes share, as KWOK uses one client for all its nodes. */
    KubernetesClient nodeSimulator() {
        return client(pki.clientCertificate("node-simulator", BootstrapPolicy.NODE_SIMULATOR_USER, List.of()));
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
