package io.k4j.launcher;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.k4j.apiserver.authorization.rbac.BootstrapPolicy;
import io.k4j.apiserver.pki.CertificateAndKey;
import io.k4j.apiserver.pki.CertificateSubject;
import io.k4j.apiserver.pki.ClusterPki;
import io.k4j.apiserver.pki.KeyPurpose;
import io.k4j.controllerkit.informers.SharedEventDecoding;
import io.k4j.controllerkit.informers.StreamingSerialization;
import io.k4j.launcher.inprocess.InProcessHttpClientFactory;
import io.k4j.launcher.inprocess.InProcessTaskExecutor;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.OptionalInt;

/**
 * Builds the API clients of in-process components (through the server's in-process transport), each authenticated by its own client certificate from the cluster
 * PKI, so that authorization sees {@code system:kube-scheduler}, {@code system:node:<name>} and so on exactly as it
 * would for separate processes. Closes every client it built. Thread-safe.
 */
final class ComponentClients implements AutoCloseable {
    private final String serverUrl;
    private final ClusterPki pki;
    private final HttpClient.Factory transport;
    private final List<KubernetesClient> clients = new ArrayList<>();
    /**
     * Watch events decoded once for all the components: the scheduler's, the controller manager's and the node
     * simulator's pod informers see every pod event at about the same time. With 20,000 pods bound and Running on 300
     * simulated nodes, 1,024 remembered events left 0.3 more decodings per pod than 4,096 (3.5 against 3.2 for the
     * three changes of each pod), the consumers having drifted further apart than that; each remembered event holds
     * its text, a few KB for a pod.
     */
    private final SharedEventDecoding sharedDecoding = new SharedEventDecoding(4096);

    /**
     * @param transport how the clients reach the apiserver at {@code serverUrl}: in this JVM, the
     *     {@link InProcessHttpClientFactory} of the server
     */
    ComponentClients(String serverUrl, ClusterPki pki, HttpClient.Factory transport) {
        this.serverUrl = requireNonNull(serverUrl, "serverUrl is null");
        this.pki = requireNonNull(pki, "pki is null");
        this.transport = requireNonNull(transport, "transport is null");
    }

    /** The cluster CA certificate in PEM, which pods get in their namespace's {@code kube-root-ca.crt}. */
    String caCertificatePem() {
        return pki.caCertificatePem();
    }

    KubernetesClient controllerManager() {
        return client(pki.controllerManager(), OptionalInt.empty(), "kube-controller-manager");
    }

    KubernetesClient scheduler() {
        return client(pki.scheduler(), OptionalInt.empty(), "kube-scheduler");
    }

    KubernetesClient kubeProxy() {
        return client(pki.kubeProxy(), OptionalInt.empty(), "kube-proxy");
    }

    /**
     * The one identity all simulated nodes share, as KWOK uses one client for all its nodes. Its requests are not
     * retried by the client: the simulator retries on its own schedule (the kubelet's lease backoff, pod retries).
     */
    KubernetesClient nodeSimulator() {
        return client(pki.clientCertificate("node-simulator", BootstrapPolicy.NODE_SIMULATOR_USER, List.of()), OptionalInt.of(0), "k4j-node-simulator");
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
                new CertificateSubject("system:serviceaccount:kube-system:" + name, List.of("system:serviceaccounts", "system:serviceaccounts:kube-system")),
                KeyPurpose.CLIENT_AUTH, List.of(), List.of(), ClusterPki.LEAF_VALIDITY);
        return client(new CertificateAndKey(certificate, manager.privateKey()), OptionalInt.empty(), "kube-controller-manager");
    }

    /**
     * The cluster DNS's identity: the {@code kube-system/coredns} service account that upstream's CoreDNS addon runs as,
     * bound to {@code system:coredns}. Like the controllers' service accounts it reuses the controller manager's key.
     */
    KubernetesClient coreDns() {
        CertificateAndKey manager = pki.controllerManager();
        X509Certificate certificate = pki.authority().sign(manager.certificate().getPublicKey(),
                new CertificateSubject(ClusterDnsComponent.USER, List.of("system:serviceaccounts", "system:serviceaccounts:kube-system")),
                KeyPurpose.CLIENT_AUTH, List.of(), List.of(), ClusterPki.LEAF_VALIDITY);
        return client(new CertificateAndKey(certificate, manager.privateKey()), OptionalInt.empty(), "coredns");
    }

    /** The cluster admin, as the admin kubeconfig authenticates; only the start-up archive's training run uses it. */
    KubernetesClient admin() {
        return client(pki.admin(), OptionalInt.empty(), "k4j-training");
    }

    /** The cluster PKI, for the serving certificate of a node's kubelet server. */
    ClusterPki pki() {
        return pki;
    }

    KubernetesClient node(String nodeName) {
        return client(pki.nodeClientCertificate(nodeName), OptionalInt.empty(), "kubelet");
    }

    /**
     * @param component the User-Agent's product, as upstream's components send it: the apiserver derives the default
     *     field manager of their writes from it (e.g. {@code kube-controller-manager} in managedFields)
     */
    private synchronized KubernetesClient client(CertificateAndKey identity, OptionalInt requestRetries, String component) {
        KubernetesClient client = build(serverUrl, pki.caCertificatePem(), identity, requestRetries, component, transport, new StreamingSerialization(true, sharedDecoding));
        clients.add(client);
        return client;
    }

    /**
     * A client of the apiserver at {@code serverUrl}, trusting only {@code caPem} and authenticated by {@code identity}'s
     * client certificate; the caller closes it.
     *
     * @param component the User-Agent's product, as in {@link #client}
     * @param transport the HTTP client factory: fabric8's JDK client for a server in another process
     * @param serialization a {@link StreamingSerialization} that drops managedFields from watch events: components only
     *     watch through informers, which keep none
     */
    static KubernetesClient build(String serverUrl, String caPem, CertificateAndKey identity, OptionalInt requestRetries, String component,
            HttpClient.Factory transport, StreamingSerialization serialization) {
        boolean inProcess = transport instanceof InProcessHttpClientFactory;
        ConfigBuilder builder = new ConfigBuilder(Config.empty());
        requestRetries.ifPresent(builder::withRequestRetryBackoffLimit);
        if (inProcess) {
            // Requests without a timeout of their own: the in-process transport gives each one its deadline, without
            // the timer fabric8 would start and cancel (two exceptions) around every request that has one.
            builder.withRequestTimeout(0);
        }
        Config config = builder
                .withMasterUrl(serverUrl)
                .withUserAgent(component + "/" + Versions.KUBERNETES_VERSION + " (linux/amd64) k4j/" + Versions.K4J_VERSION)
                .withCaCertData(base64(caPem))
                .withClientCertData(base64(identity.certificatePem()))
                .withClientKeyData(base64(identity.privateKeyPem()))
                .withClientKeyAlgo(identity.privateKey().getAlgorithm())
                .build();
        KubernetesClientBuilder client = new KubernetesClientBuilder().withConfig(config).withHttpClientFactory(transport).withKubernetesSerialization(serialization);
        if (inProcess) {
            client.withTaskExecutorSupplier(InProcessTaskExecutor.supplier());
        }
        return client.build();
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
