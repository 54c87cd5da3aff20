package io.k4j.apiserver.pki;

import static java.util.Objects.requireNonNull;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.ASN1String;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x500.style.IETFUtils;

/**
 * The cluster's certificates and keys, kept as PEM files in one directory (kubeadm-like names):
 *
 * <pre>
 * ca.crt ca.key                               cluster CA (10 years)
 * apiserver.crt apiserver.key                 API server serving certificate
 * apiserver-kubelet-client.crt/.key           the API server's client certificate towards kubelets
 * admin.crt admin.key                         CN=kubernetes-admin, O=system:masters
 * kube-controller-manager.crt/.key            CN=system:kube-controller-manager
 * kube-scheduler.crt/.key                     CN=system:kube-scheduler
 * kube-proxy.crt/.key                         CN=system:kube-proxy
 * kubelet-&lt;node&gt;.crt/.key                   CN=system:node:&lt;node&gt;, O=system:nodes
 * sa.key sa.pub                               service-account token signing key pair
 * </pre>
 *
 * <p>{@link #loadOrCreate} creates what is missing and reuses what exists, so restarts keep every identity.
 * A leaf certificate is issued again when it is not signed by the current CA, expires within 30 days, or no longer
 * covers the names it must (e.g. a new {@code --tls-san}). Keys are written with mode 0600.
 *
 * <p>Thread-safe: the loaded material is immutable; {@link #clientCertificate} serialises file access.
 */
public final class ClusterPki {
    public static final Duration CA_VALIDITY = Duration.ofDays(3650);
    public static final Duration LEAF_VALIDITY = Duration.ofDays(365);
    static final Duration RENEW_BEFORE = Duration.ofDays(30);

    public static final String ADMIN_USER = "kubernetes-admin";
    public static final String CONTROLLER_MANAGER_USER = "system:kube-controller-manager";
    public static final String SCHEDULER_USER = "system:kube-scheduler";
    public static final String KUBE_PROXY_USER = "system:kube-proxy";
    public static final String APISERVER_KUBELET_CLIENT_USER = "kube-apiserver-kubelet-client";
    public static final String NODES_GROUP = "system:nodes";
    public static final String NODE_USER_PREFIX = "system:node:";

    private final Path directory;
    private final PkiOptions options;
    private final CertificateAuthority authority;
    private final CertificateAndKey apiServer;
    private final CertificateAndKey apiServerKubeletClient;
    private final CertificateAndKey admin;
    private final CertificateAndKey controllerManager;
    private final CertificateAndKey scheduler;
    private final CertificateAndKey kubeProxy;
    private final CertificateAndKey nodeClient;
    private final KeyPair serviceAccountKeys;

    private ClusterPki(Path directory, PkiOptions options) {
        this.directory = directory;
        this.options = options;
        SecureFiles.createDirectory(directory);
        this.authority = loadOrCreateAuthority();
        // The leaves are independent of each other and each may need a new key pair (RSA key generation is the
        // bulk of a first start), so they are loaded or issued on all cores at once.
        int threads = Math.max(1, Math.min(8, Runtime.getRuntime().availableProcessors()));
        try (ExecutorService workers = Executors.newFixedThreadPool(threads, Thread.ofPlatform().daemon().name("pki-", 0).factory())) {
            Future<CertificateAndKey> apiServerTask = workers.submit(() -> loadOrIssue("apiserver", () -> authority.issueServingCertificate(
                            "kube-apiserver", apiServerDnsNames(), apiServerIpAddresses(), options.keyAlgorithm(), LEAF_VALIDITY),
                    certificate -> coversNames(certificate, apiServerDnsNames(), apiServerIpAddresses())));
            Future<CertificateAndKey> apiServerKubeletClientTask = workers.submit(() ->
                    loadOrIssueClientCertificate("apiserver-kubelet-client", APISERVER_KUBELET_CLIENT_USER, List.of("system:masters")));
            Future<CertificateAndKey> adminTask = workers.submit(() -> loadOrIssueClientCertificate("admin", ADMIN_USER, List.of("system:masters")));
            Future<CertificateAndKey> controllerManagerTask = workers.submit(() ->
                    loadOrIssueClientCertificate("kube-controller-manager", CONTROLLER_MANAGER_USER, List.of()));
            Future<CertificateAndKey> schedulerTask = workers.submit(() -> loadOrIssueClientCertificate("kube-scheduler", SCHEDULER_USER, List.of()));
            Future<CertificateAndKey> kubeProxyTask = workers.submit(() -> loadOrIssueClientCertificate("kube-proxy", KUBE_PROXY_USER, List.of()));
            Future<CertificateAndKey> nodeClientTask = workers.submit(() -> loadOrIssueClientCertificate(
                    "kubelet-" + options.nodeName(), NODE_USER_PREFIX + options.nodeName(), List.of(NODES_GROUP)));
            Future<KeyPair> serviceAccountKeysTask = workers.submit(this::loadOrCreateServiceAccountKeys);
            this.apiServer = result(apiServerTask);
            this.apiServerKubeletClient = result(apiServerKubeletClientTask);
            this.admin = result(adminTask);
            this.controllerManager = result(controllerManagerTask);
            this.scheduler = result(schedulerTask);
            this.kubeProxy = result(kubeProxyTask);
            this.nodeClient = result(nodeClientTask);
            this.serviceAccountKeys = result(serviceAccountKeysTask);
        }
    }

    private static <T> T result(Future<T> task) {
        try {
            return task.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException("cannot load or create the PKI", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while loading or creating the PKI", e);
        }
    }

    /** Loads the PKI in {@code directory}, creating whatever is missing or no longer fits. */
    public static ClusterPki loadOrCreate(Path directory, PkiOptions options) {
        requireNonNull(directory, "directory is null");
        requireNonNull(options, "options is null");
        return new ClusterPki(directory, options);
    }

    public Path directory() {
        return directory;
    }

    public CertificateAuthority authority() {
        return authority;
    }

    public X509Certificate caCertificate() {
        return authority.certificate();
    }

    public String caCertificatePem() {
        return Pem.encodeCertificates(List.of(authority.certificate()));
    }

    public Path caCertificateFile() {
        return directory.resolve("ca.crt");
    }

    public CertificateAndKey apiServer() {
        return apiServer;
    }

    public CertificateAndKey apiServerKubeletClient() {
        return apiServerKubeletClient;
    }

    public CertificateAndKey admin() {
        return admin;
    }

    public CertificateAndKey controllerManager() {
        return controllerManager;
    }

    public CertificateAndKey scheduler() {
        return scheduler;
    }

    public CertificateAndKey kubeProxy() {
        return kubeProxy;
    }

    /** The kubelet client certificate of the local node ({@link PkiOptions#nodeName()}). */
    public CertificateAndKey nodeClient() {
        return nodeClient;
    }

    public PrivateKey serviceAccountSigningKey() {
        return serviceAccountKeys.getPrivate();
    }

    public PublicKey serviceAccountPublicKey() {
        return serviceAccountKeys.getPublic();
    }

    /** The kubelet client certificate of any node, kept as {@code kubelet-<node>.crt/.key}. */
    public CertificateAndKey nodeClientCertificate(String nodeName) {
        return clientCertificate("kubelet-" + nodeName, NODE_USER_PREFIX + nodeName, List.of(NODES_GROUP));
    }

    /**
     * Loads {@code <baseName>.crt/.key} when they hold a valid certificate for exactly this user and these groups, and
     * issues and stores a new one otherwise.
     */
    public synchronized CertificateAndKey clientCertificate(String baseName, String user, List<String> groups) {
        return loadOrIssueClientCertificate(baseName, user, groups);
    }

    private CertificateAndKey loadOrIssueClientCertificate(String baseName, String user, List<String> groups) {
        requireNonNull(baseName, "baseName is null");
        requireNonNull(user, "user is null");
        List<String> expectedGroups = List.copyOf(groups);
        return loadOrIssue(baseName,
                () -> authority.issueClientCertificate(user, expectedGroups, options.keyAlgorithm(), LEAF_VALIDITY),
                certificate -> user.equals(commonName(certificate)) && expectedGroups.equals(organizations(certificate)));
    }

    /** Issues a client certificate that is not stored (e.g. for tests or short-lived tools). */
    public CertificateAndKey issueClientCertificate(String user, List<String> groups, Duration validity) {
        return authority.issueClientCertificate(user, groups, options.keyAlgorithm(), validity);
    }

    /** The common name (user name) of a certificate's subject, or empty. */
    public static String commonName(X509Certificate certificate) {
        List<String> values = subjectValues(certificate, BCStyle.CN);
        return values.isEmpty() ? "" : values.get(0);
    }

    /** The organizations (groups) of a certificate's subject, in order. */
    public static List<String> organizations(X509Certificate certificate) {
        return subjectValues(certificate, BCStyle.O);
    }

    private static List<String> subjectValues(X509Certificate certificate, ASN1ObjectIdentifier attribute) {
        X500Name name = X500Name.getInstance(certificate.getSubjectX500Principal().getEncoded());
        List<String> values = new ArrayList<>();
        for (RDN rdn : name.getRDNs(attribute)) {
            ASN1Encodable value = rdn.getFirst().getValue();
            values.add(value instanceof ASN1String string ? string.getString() : IETFUtils.valueToString(value));
        }
        return List.copyOf(values);
    }

    private List<String> apiServerDnsNames() {
        Set<String> names = new LinkedHashSet<>();
        names.add("localhost");
        names.add(options.hostName());
        names.add("kubernetes");
        names.add("kubernetes.default");
        names.add("kubernetes.default.svc");
        names.add("kubernetes.default.svc." + options.clusterDomain());
        names.addAll(options.extraDnsNames());
        return List.copyOf(names);
    }

    private List<InetAddress> apiServerIpAddresses() {
        Set<InetAddress> addresses = new LinkedHashSet<>();
        try {
            addresses.add(InetAddress.getByName("127.0.0.1"));
            addresses.add(InetAddress.getByName("::1"));
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
        addresses.add(options.serviceIp());
        addresses.addAll(options.extraIpAddresses());
        return List.copyOf(addresses);
    }

    private CertificateAuthority loadOrCreateAuthority() {
        Path certificateFile = directory.resolve("ca.crt");
        Path keyFile = directory.resolve("ca.key");
        if (Files.exists(certificateFile) && Files.exists(keyFile)) {
            X509Certificate certificate = Pem.decodeCertificate(SecureFiles.read(certificateFile));
            PrivateKey key = Pem.decodePrivateKey(SecureFiles.read(keyFile));
            return new CertificateAuthority(new CertificateAndKey(certificate, key), options.clock());
        }
        CertificateAuthority created = CertificateAuthority.create("kubernetes-ca", options.keyAlgorithm(), CA_VALIDITY, options.clock());
        // The key first: a certificate without its key on disk would be loaded as a half CA after a crash.
        SecureFiles.write(keyFile, created.root().privateKeyPem(), SecureFiles.OWNER_ONLY);
        SecureFiles.write(certificateFile, created.root().certificatePem(), SecureFiles.WORLD_READABLE);
        return created;
    }

    private CertificateAndKey loadOrIssue(String baseName, Supplier<CertificateAndKey> issue, Predicate<X509Certificate> fits) {
        Path certificateFile = directory.resolve(baseName + ".crt");
        Path keyFile = directory.resolve(baseName + ".key");
        if (Files.exists(certificateFile) && Files.exists(keyFile)) {
            X509Certificate certificate = Pem.decodeCertificate(SecureFiles.read(certificateFile));
            if (isSignedByAuthority(certificate) && !expiresSoon(certificate) && fits.test(certificate)) {
                return new CertificateAndKey(certificate, Pem.decodePrivateKey(SecureFiles.read(keyFile)));
            }
        }
        CertificateAndKey issued = issue.get();
        SecureFiles.write(keyFile, issued.privateKeyPem(), SecureFiles.OWNER_ONLY);
        SecureFiles.write(certificateFile, issued.certificatePem(), SecureFiles.WORLD_READABLE);
        return issued;
    }

    private KeyPair loadOrCreateServiceAccountKeys() {
        Path privateFile = directory.resolve("sa.key");
        Path publicFile = directory.resolve("sa.pub");
        if (Files.exists(privateFile) && Files.exists(publicFile)) {
            return new KeyPair(Pem.decodePublicKey(SecureFiles.read(publicFile)), Pem.decodePrivateKey(SecureFiles.read(privateFile)));
        }
        KeyPair keyPair = options.keyAlgorithm().generate();
        SecureFiles.write(privateFile, Pem.encodePrivateKey(keyPair.getPrivate()), SecureFiles.OWNER_ONLY);
        SecureFiles.write(publicFile, Pem.encodePublicKey(keyPair.getPublic()), SecureFiles.WORLD_READABLE);
        return keyPair;
    }

    private boolean isSignedByAuthority(X509Certificate certificate) {
        try {
            certificate.verify(authority.certificate().getPublicKey());
            return true;
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    private boolean expiresSoon(X509Certificate certificate) {
        Instant notAfter = certificate.getNotAfter().toInstant();
        return notAfter.isBefore(options.clock().instant().plus(RENEW_BEFORE));
    }

    private static boolean coversNames(X509Certificate certificate, List<String> dnsNames, List<InetAddress> ipAddresses) {
        Set<String> presentNames = new LinkedHashSet<>();
        Set<InetAddress> presentAddresses = new LinkedHashSet<>();
        try {
            Collection<List<?>> alternativeNames = certificate.getSubjectAlternativeNames();
            if (alternativeNames == null) {
                return false;
            }
            for (List<?> entry : alternativeNames) {
                int type = (Integer) entry.get(0);
                String value = (String) entry.get(1);
                if (type == 2) {
                    presentNames.add(value);
                } else if (type == 7) {
                    presentAddresses.add(InetAddress.getByName(value));
                }
            }
        } catch (CertificateParsingException | UnknownHostException e) {
            return false;
        }
        return presentNames.containsAll(dnsNames) && presentAddresses.containsAll(ipAddresses);
    }
}
