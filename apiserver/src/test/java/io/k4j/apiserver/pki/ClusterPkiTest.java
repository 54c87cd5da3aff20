package io.k4j.apiserver.pki;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.cert.CertPath;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterPkiTest {
    @TempDir
    Path directory;

    private final List<ClusterPki> loaded = new ArrayList<>();

    /** Loads or creates a PKI, whose background work {@link #awaitBackgroundWork} waits for before the directory goes. */
    private ClusterPki load(Path path, PkiOptions options) {
        ClusterPki pki = ClusterPki.loadOrCreate(path, options);
        loaded.add(pki);
        return pki;
    }

    @AfterEach
    void awaitBackgroundWork() {
        loaded.forEach(ClusterPki::awaitBackgroundWork);
    }

    private PkiOptions options() throws Exception {
        return PkiOptions.of("k4j-host", "node-1", InetAddress.getByName("10.43.0.1"));
    }

    @Test
    void createsIdentitiesWithUpstreamSubjects() throws Exception {
        ClusterPki pki = load(directory, options());

        assertThat(ClusterPki.commonName(pki.admin().certificate())).isEqualTo("kubernetes-admin");
        assertThat(ClusterPki.organizations(pki.admin().certificate())).containsExactly("system:masters");
        assertThat(ClusterPki.commonName(pki.controllerManager().certificate())).isEqualTo("system:kube-controller-manager");
        assertThat(ClusterPki.commonName(pki.scheduler().certificate())).isEqualTo("system:kube-scheduler");
        assertThat(ClusterPki.commonName(pki.kubeProxy().certificate())).isEqualTo("system:kube-proxy");
        assertThat(ClusterPki.commonName(pki.nodeClient().certificate())).isEqualTo("system:node:node-1");
        assertThat(ClusterPki.organizations(pki.nodeClient().certificate())).containsExactly("system:nodes");
        assertThat(pki.caCertificate().getBasicConstraints()).isGreaterThanOrEqualTo(0);
        assertThat(pki.admin().certificate().getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.2");
        assertThat(pki.apiServer().certificate().getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
        assertThat(pki.apiServer().certificate().getSubjectAlternativeNames())
                .extracting(entry -> (Object) entry.get(1))
                .contains("localhost", "k4j-host", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
                        "kubernetes.default.svc.cluster.local", "127.0.0.1", "10.43.0.1");
    }

    @Test
    void chainsVerifyAgainstTheCa() throws Exception {
        ClusterPki pki = load(directory, options());
        CertificateFactory factory = CertificateFactory.getInstance("X.509");
        for (CertificateAndKey leaf : List.of(pki.apiServer(), pki.admin(), pki.nodeClient())) {
            CertPath path = factory.generateCertPath(List.of(leaf.certificate()));
            PKIXParameters parameters = new PKIXParameters(Set.of(new TrustAnchor(pki.caCertificate(), null)));
            parameters.setRevocationEnabled(false);
            CertPathValidator.getInstance("PKIX").validate(path, parameters);
        }
    }

    @Test
    void writesKeysOwnerOnlyAndReusesEverythingOnRestart() throws Exception {
        ClusterPki first = load(directory, options());
        first.nodeClient();
        first.awaitBackgroundWork();
        for (String key : List.of("ca.key", "apiserver.key", "admin.key", "sa.key", "kubelet-node-1.key")) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(directory.resolve(key)))).isEqualTo("rw-------");
        }

        ClusterPki second = load(directory, options());

        assertThat(second.caCertificate()).isEqualTo(first.caCertificate());
        assertThat(second.apiServer().certificate()).isEqualTo(first.apiServer().certificate());
        assertThat(second.admin().certificate()).isEqualTo(first.admin().certificate());
        assertThat(second.admin().privateKey().getEncoded()).isEqualTo(first.admin().privateKey().getEncoded());
        assertThat(second.serviceAccountPublicKey()).isEqualTo(first.serviceAccountPublicKey());
        assertThat(second.serviceAccountSigningKey().getEncoded()).isEqualTo(first.serviceAccountSigningKey().getEncoded());
    }

    @Test
    void reissuesLeavesWhenTheAuthorityIsReplaced() throws Exception {
        ClusterPki first = load(directory, options());
        first.scheduler();
        first.awaitBackgroundWork();
        Files.delete(directory.resolve("ca.crt"));
        Files.delete(directory.resolve("ca.key"));

        ClusterPki second = load(directory, options());

        assertThat(second.caCertificate()).isNotEqualTo(first.caCertificate());
        for (CertificateAndKey leaf : List.of(second.apiServer(), second.admin(), second.scheduler())) {
            leaf.certificate().verify(second.caCertificate().getPublicKey());
        }
        assertThat(load(directory, options()).admin().certificate()).isEqualTo(second.admin().certificate());
    }

    @Test
    void reissuesTheServingCertificateWhenANameIsAdded() throws Exception {
        ClusterPki first = load(directory, options());
        first.awaitBackgroundWork(); // the admin identity must be on disk before the second load reads it
        PkiOptions withSan = new PkiOptions("k4j-host", "node-1", InetAddress.getByName("10.43.0.1"), "cluster.local",
                List.of("api.example.test"), List.of(InetAddress.getByName("192.0.2.10")), KeyAlgorithm.ECDSA_P256, KeyAlgorithm.ECDSA_P256,
                java.time.InstantSource.system());

        ClusterPki second = load(directory, withSan);

        assertThat(second.caCertificate()).isEqualTo(first.caCertificate());
        assertThat(second.apiServer().certificate()).isNotEqualTo(first.apiServer().certificate());
        assertThat(second.apiServer().certificate().getSubjectAlternativeNames())
                .extracting(entry -> (Object) entry.get(1))
                .contains("api.example.test", "192.0.2.10");
        assertThat(second.admin().certificate()).isEqualTo(first.admin().certificate());
    }

    @Test
    void rsaKeysWork() throws Exception {
        PkiOptions rsa = new PkiOptions("k4j-host", "node-1", InetAddress.getByName("10.43.0.1"), "cluster.local",
                List.of(), List.of(), KeyAlgorithm.RSA_2048, KeyAlgorithm.RSA_2048, java.time.InstantSource.system());
        ClusterPki pki = load(directory, rsa);

        assertThat(pki.caCertificate().getPublicKey().getAlgorithm()).isEqualTo("RSA");
        pki.admin().certificate().verify(pki.caCertificate().getPublicKey());
        assertThat(load(directory, rsa).admin().certificate()).isEqualTo(pki.admin().certificate());
    }

    @Test
    void clientKeysCanHaveAnotherAlgorithmThanTheAuthority() throws Exception {
        PkiOptions mixed = new PkiOptions("k4j-host", "node-1", InetAddress.getByName("10.43.0.1"), "cluster.local",
                List.of(), List.of(), KeyAlgorithm.ECDSA_P256, KeyAlgorithm.RSA_2048, java.time.InstantSource.system());
        ClusterPki pki = load(directory, mixed);

        assertThat(pki.caCertificate().getPublicKey().getAlgorithm()).isEqualTo("EC");
        assertThat(pki.apiServer().privateKey().getAlgorithm()).isEqualTo("EC");
        assertThat(pki.serviceAccountPublicKey().getAlgorithm()).isEqualTo("EC");
        assertThat(pki.admin().privateKey().getAlgorithm()).isEqualTo("RSA");
        assertThat(pki.scheduler().privateKey().getAlgorithm()).isEqualTo("RSA");
        pki.scheduler().certificate().verify(pki.caCertificate().getPublicKey());

        ClusterPki reloaded = load(directory, mixed);
        assertThat(reloaded.admin().privateKey()).isEqualTo(pki.admin().privateKey());
        assertThat(reloaded.scheduler().certificate()).isEqualTo(pki.scheduler().certificate());
    }

    @Test
    void componentIdentitiesAreMadeOnFirstUseAndKept() throws Exception {
        ClusterPki pki = load(directory, options());
        assertThat(directory.resolve("kube-scheduler.crt")).doesNotExist();

        CertificateAndKey scheduler = pki.scheduler();

        assertThat(directory.resolve("kube-scheduler.crt")).exists();
        assertThat(pki.scheduler()).isSameAs(scheduler);
        assertThat(pki.nodeClientCertificate("node-1")).isSameAs(pki.nodeClient());
        assertThat(load(directory, options()).scheduler().certificate()).isEqualTo(scheduler.certificate());
    }

    @Test
    void prepareAllMakesEveryComponentIdentity() throws Exception {
        ClusterPki pki = load(directory, options());

        pki.prepareAll();

        for (String baseName : List.of("kube-controller-manager", "kube-scheduler", "kube-proxy", "kubelet-node-1", "apiserver-kubelet-client")) {
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(directory.resolve(baseName + ".crt")));
        }
        assertThat(ClusterPki.commonName(pki.apiServerKubeletClient().certificate())).isEqualTo(ClusterPki.APISERVER_KUBELET_CLIENT_USER);
    }

    @Test
    void kubeletServingCertificatesNameTheNodeAndFollowItsAddresses() throws Exception {
        ClusterPki pki = load(directory, options());
        InetAddress first = InetAddress.getByName("10.0.0.5");

        CertificateAndKey serving = pki.kubeletServingCertificate("node-1", List.of("node-1.example"), List.of(first));

        assertThat(ClusterPki.commonName(serving.certificate())).isEqualTo("system:node:node-1");
        assertThat(serving.certificate().getExtendedKeyUsage()).contains("1.3.6.1.5.5.7.3.1");
        assertThat(serving.certificate().getSubjectAlternativeNames()).extracting(name -> name.get(1).toString())
                .contains("node-1.example", "10.0.0.5");
        serving.certificate().verify(pki.caCertificate().getPublicKey());
        assertThat(Files.exists(directory.resolve("kubelet-node-1-serving.crt"))).isTrue();
        assertThat(pki.kubeletServingCertificate("node-1", List.of("node-1.example"), List.of(first)).certificate())
                .isEqualTo(serving.certificate());

        CertificateAndKey moved = pki.kubeletServingCertificate("node-1", List.of("node-1.example"), List.of(InetAddress.getByName("10.0.0.6")));
        assertThat(moved.certificate()).isNotEqualTo(serving.certificate());
        assertThat(moved.certificate().getSubjectAlternativeNames()).extracting(name -> name.get(1).toString()).contains("10.0.0.6");
    }

    @Test
    void subjectsWithSeveralOrganizationsAndEscapedCharactersParse() throws Exception {
        ClusterPki pki = load(directory, options());

        CertificateAndKey issued = pki.issueClientCertificate("jane, \"the admin\"+ü", List.of("group-a", "b=c", "system:masters"), Duration.ofHours(1));

        assertThat(ClusterPki.commonName(issued.certificate())).isEqualTo("jane, \"the admin\"+ü");
        assertThat(ClusterPki.organizations(issued.certificate())).containsExactly("group-a", "b=c", "system:masters");
    }

    @Test
    void pemRoundTrips() throws Exception {
        KeyPair keyPair = KeyAlgorithm.ECDSA_P256.generate();
        assertThat(Pem.decodePrivateKey(Pem.encodePrivateKey(keyPair.getPrivate())).getEncoded()).isEqualTo(keyPair.getPrivate().getEncoded());
        assertThat(Pem.decodePublicKey(Pem.encodePublicKey(keyPair.getPublic()))).isEqualTo(keyPair.getPublic());
        assertThat(Pem.encodePrivateKey(keyPair.getPrivate())).startsWith("-----BEGIN PRIVATE KEY-----");
        assertThatThrownBy(() -> Pem.decodeCertificate("garbage")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void pemReadsWhatOpensslAndGoWrite() throws Exception {
        ClusterPki pki = load(directory, options());
        String bundle = pki.caCertificatePem() + pki.apiServer().certificatePem();
        assertThat(Pem.decodeCertificates(bundle)).containsExactly(pki.caCertificate(), pki.apiServer().certificate());
        assertThat(Pem.decodePublicKey(pki.apiServer().certificatePem())).isEqualTo(pki.apiServer().certificate().getPublicKey());

        // Legacy forms: PKCS#1 RSA and SEC 1 EC private keys, written by `openssl genrsa`/`openssl ecparam -genkey`
        // and by Go's x509.MarshalPKCS1PrivateKey / MarshalECPrivateKey. Each is the inner key of its PKCS#8 form.
        KeyPair rsa = KeyAlgorithm.RSA_2048.generate();
        byte[] pkcs1 = innerPrivateKey(rsa.getPrivate().getEncoded());
        assertThat(Pem.decodePrivateKey(pem("RSA PRIVATE KEY", pkcs1))).isEqualTo(rsa.getPrivate());
        KeyPair ec = KeyAlgorithm.ECDSA_P256.generate();
        // JDK's inner SEC 1 key omits the curve; Go and openssl put it in [0]: add it as they do.
        byte[] sec1WithoutCurve = innerPrivateKey(ec.getPrivate().getEncoded());
        java.util.List<Der.Element> fields = Der.element(sec1WithoutCurve).children();
        byte[] sec1 = Der.encode(Der.SEQUENCE, fields.get(0).encoded(), fields.get(1).encoded(),
                Der.encode(Der.CONTEXT_0, Der.objectIdentifier("1.2.840.10045.3.1.7")));
        String withParameters = pem("EC PARAMETERS", Der.objectIdentifier("1.2.840.10045.3.1.7")) + pem("EC PRIVATE KEY", sec1);
        assertThat(Pem.decodePrivateKey(withParameters).getEncoded()).isNotEmpty();
        assertThat(((java.security.interfaces.ECPrivateKey) Pem.decodePrivateKey(withParameters)).getS())
                .isEqualTo(((java.security.interfaces.ECPrivateKey) ec.getPrivate()).getS());
        assertThatThrownBy(() -> Pem.decodePrivateKey(pem("ENCRYPTED PRIVATE KEY", new byte[] {1})))
                .hasMessageContaining("encrypted");
    }

    private static byte[] innerPrivateKey(byte[] pkcs8) {
        return Der.element(pkcs8).children().get(2).content();
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder().encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    @Test
    void derObjectIdentifiersRoundTrip() {
        for (String oid : List.of("1.2.840.113549.1.1.1", "2.5.4.3", "1.3.101.112", "2.999.1")) {
            assertThat(Der.element(Der.objectIdentifier(oid)).objectIdentifier()).isEqualTo(oid);
        }
    }

    @Test
    void tlsHandshakeVerifiesHostNameAndClientCertificate() throws Exception {
        ClusterPki pki = load(directory, options());
        SSLContext serverContext = TlsContexts.serverContext(pki.apiServer(), List.of(pki.caCertificate()));
        SSLContext clientContext = TlsContexts.clientContext(List.of(pki.caCertificate()), Optional.of(pki.admin()));

        try (SSLServerSocket server = (SSLServerSocket) serverContext.getServerSocketFactory().createServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            server.setNeedClientAuth(true);
            CompletableFuture<X509Certificate> seenClient = CompletableFuture.supplyAsync(() -> {
                try (SSLSocket socket = (SSLSocket) server.accept()) {
                    InputStream in = socket.getInputStream();
                    int value = in.read();
                    OutputStream out = socket.getOutputStream();
                    out.write(value);
                    out.flush();
                    return (X509Certificate) socket.getSession().getPeerCertificates()[0];
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Socket plain = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
            try (SSLSocket socket = (SSLSocket) clientContext.getSocketFactory().createSocket(plain, "localhost", server.getLocalPort(), true)) {
                SSLParameters parameters = socket.getSSLParameters();
                parameters.setEndpointIdentificationAlgorithm("HTTPS");
                socket.setSSLParameters(parameters);
                socket.getOutputStream().write(42);
                socket.getOutputStream().flush();
                assertThat(socket.getInputStream().read()).isEqualTo(42);
            }
            assertThat(ClusterPki.commonName(seenClient.get(10, TimeUnit.SECONDS))).isEqualTo("kubernetes-admin");
        }
    }

    @Test
    void tlsHandshakeRejectsANameNotInTheCertificate() throws Exception {
        ClusterPki pki = load(directory, options());
        SSLContext serverContext = TlsContexts.serverContext(pki.apiServer(), List.of(pki.caCertificate()));
        SSLContext clientContext = TlsContexts.clientContext(List.of(pki.caCertificate()), Optional.empty());

        try (SSLServerSocket server = (SSLServerSocket) serverContext.getServerSocketFactory().createServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> {
                try (SSLSocket socket = (SSLSocket) server.accept()) {
                    socket.startHandshake();
                } catch (Exception expected) {
                    // the client aborts the handshake
                }
            });
            // connect to the loopback address but verify a name the certificate does not carry
            Socket plain = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
            try (SSLSocket socket = (SSLSocket) clientContext.getSocketFactory().createSocket(plain, "wrong.example.test", server.getLocalPort(), true)) {
                SSLParameters parameters = socket.getSSLParameters();
                parameters.setEndpointIdentificationAlgorithm("HTTPS");
                socket.setSSLParameters(parameters);
                assertThatThrownBy(socket::startHandshake).isInstanceOf(SSLHandshakeException.class);
            }
            accepted.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void kubeconfigParsesBackToTheStandardLayout() throws Exception {
        ClusterPki pki = load(directory, options());
        Path file = directory.resolve("admin.kubeconfig");

        Kubeconfig.write(file, "k4j", "https://127.0.0.1:6443", pki.caCertificatePem(), pki.admin().certificatePem(),
                pki.admin().privateKeyPem(), "admin", "k4j");

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        JsonNode config = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(file));
        assertThat(config.path("apiVersion").asText()).isEqualTo("v1");
        assertThat(config.path("kind").asText()).isEqualTo("Config");
        assertThat(config.path("current-context").asText()).isEqualTo("k4j");
        JsonNode cluster = config.path("clusters").get(0);
        assertThat(cluster.path("name").asText()).isEqualTo("k4j");
        assertThat(cluster.path("cluster").path("server").asText()).isEqualTo("https://127.0.0.1:6443");
        String caPem = new String(Base64.getDecoder().decode(cluster.path("cluster").path("certificate-authority-data").asText()), StandardCharsets.UTF_8);
        assertThat(Pem.decodeCertificate(caPem)).isEqualTo(pki.caCertificate());
        JsonNode context = config.path("contexts").get(0);
        assertThat(context.path("context").path("cluster").asText()).isEqualTo("k4j");
        assertThat(context.path("context").path("user").asText()).isEqualTo("admin");
        JsonNode user = config.path("users").get(0);
        assertThat(user.path("name").asText()).isEqualTo("admin");
        String certificatePem = new String(Base64.getDecoder().decode(user.path("user").path("client-certificate-data").asText()), StandardCharsets.UTF_8);
        String keyPem = new String(Base64.getDecoder().decode(user.path("user").path("client-key-data").asText()), StandardCharsets.UTF_8);
        assertThat(Pem.decodeCertificate(certificatePem)).isEqualTo(pki.admin().certificate());
        assertThat(Pem.decodePrivateKey(keyPem).getEncoded()).isEqualTo(pki.admin().privateKey().getEncoded());
    }

    @Test
    void issuesExtraClientCertificates() throws Exception {
        ClusterPki pki = load(directory, options());

        CertificateAndKey bob = pki.issueClientCertificate("bob", List.of("dev", "ops"), Duration.ofHours(1));
        CertificateAndKey stored = pki.clientCertificate("bob", "bob", List.of("dev"));

        assertThat(ClusterPki.organizations(bob.certificate())).containsExactly("dev", "ops");
        bob.certificate().verify(pki.caCertificate().getPublicKey());
        assertThat(pki.clientCertificate("bob", "bob", List.of("dev")).certificate()).isEqualTo(stored.certificate());
        assertThat(pki.clientCertificate("bob", "bob", List.of("dev", "qa")).certificate()).isNotEqualTo(stored.certificate());
    }
}
