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
import java.util.Arrays;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.function.Predicate;
import java.util.function.Supplier;

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
 * kubelet-&lt;node&gt;-serving.crt/.key           the kubelet's serving certificate (port 10250), SANs = the node's names and IPs
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

    private static final String COMMON_NAME = "2.5.4.3";
    private static final String ORGANIZATION = "2.5.4.10";

    private final Path directory;
    private final PkiOptions options;
    private final CertificateAuthority authority;
    private final CertificateAndKey apiServer;
    private final FutureTask<CertificateAndKey> admin;
    private final KeyPair serviceAccountKeys;
    private final FutureTask<CertificateAndKey> apiServerKubeletClient;
    private final FutureTask<CertificateAndKey> controllerManager;
    private final FutureTask<CertificateAndKey> scheduler;
    private final FutureTask<CertificateAndKey> kubeProxy;
    private final FutureTask<CertificateAndKey> nodeClient;
    private volatile boolean preparing;

    private ClusterPki(Path directory, PkiOptions options) {
        this.directory = directory;
        this.options = options;
        SecureFiles.createDirectory(directory);
        this.authority = loadOrCreateAuthority();
        // What the API server needs to serve (its certificate, the service-account keys) is made before the server
        // can start, each on its own thread since each may need a new key pair (key generation is the bulk of a first
        // start). The admin identity (an RSA key, the slowest to make) is made meanwhile in the background and is
        // needed only for the kubeconfig written last. The components' identities are needed only after the server
        // is ready, so they are made on first use or by prepareAll(), and do not delay readiness.
        this.admin = deferredClientCertificate("admin", ADMIN_USER, List.of("system:masters"));
        Thread.ofPlatform().daemon().name("pki-admin").start(admin);
        try (ExecutorService workers = Executors.newFixedThreadPool(2, Thread.ofPlatform().daemon().name("pki-", 0).factory())) {
            Future<CertificateAndKey> apiServerTask = workers.submit(() -> loadOrIssue("apiserver", () -> authority.issueServingCertificate(
                            "kube-apiserver", apiServerDnsNames(), apiServerIpAddresses(), options.keyAlgorithm(), LEAF_VALIDITY),
                    certificate -> coversNames(certificate, apiServerDnsNames(), apiServerIpAddresses())));
            Future<KeyPair> serviceAccountKeysTask = workers.submit(this::loadOrCreateServiceAccountKeys);
            this.apiServer = result(apiServerTask);
            this.serviceAccountKeys = result(serviceAccountKeysTask);
        }
        this.apiServerKubeletClient = deferredClientCertificate("apiserver-kubelet-client", APISERVER_KUBELET_CLIENT_USER, List.of("system:masters"));
        this.controllerManager = deferredClientCertificate("kube-controller-manager", CONTROLLER_MANAGER_USER, List.of());
        this.scheduler = deferredClientCertificate("kube-scheduler", SCHEDULER_USER, List.of());
        this.kubeProxy = deferredClientCertificate("kube-proxy", KUBE_PROXY_USER, List.of());
        this.nodeClient = deferredClientCertificate("kubelet-" + options.nodeName(), NODE_USER_PREFIX + options.nodeName(), List.of(NODES_GROUP));
    }

    private FutureTask<CertificateAndKey> deferredClientCertificate(String baseName, String user, List<String> groups) {
        return new FutureTask<>(() -> loadOrIssueClientCertificate(baseName, user, groups));
    }

    /** Runs {@code task} in the caller unless another thread runs or ran it, and returns its result. */
    private static CertificateAndKey obtain(FutureTask<CertificateAndKey> task) {
        task.run();
        return result(task);
    }

    /**
     * Loads or issues, on one background thread, every identity that is otherwise made on first use, so that the
     * components starting later do not wait for key generation.
     */
    public void prepareAll() {
        preparing = true;
        Thread.ofPlatform().daemon().name("pki-prepare").start(() -> {
            for (FutureTask<CertificateAndKey> task : componentIdentities()) {
                task.run();
            }
        });
    }

    /**
     * Waits until the identities made in the background (the admin's, and the components' once {@link #prepareAll}
     * ran) are written: for a caller about to remove or copy the directory.
     */
    public void awaitBackgroundWork() {
        obtain(admin);
        if (preparing) {
            componentIdentities().forEach(ClusterPki::obtain);
        }
    }

    /** The identities made on first use or by {@link #prepareAll}. */
    private List<FutureTask<CertificateAndKey>> componentIdentities() {
        return List.of(controllerManager, scheduler, nodeClient, kubeProxy, apiServerKubeletClient);
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
        return obtain(apiServerKubeletClient);
    }

    /** The cluster administrator's identity; waits for it when it is still being made. */
    public CertificateAndKey admin() {
        return obtain(admin);
    }

    public CertificateAndKey controllerManager() {
        return obtain(controllerManager);
    }

    public CertificateAndKey scheduler() {
        return obtain(scheduler);
    }

    public CertificateAndKey kubeProxy() {
        return obtain(kubeProxy);
    }

    /** The kubelet client certificate of the local node ({@link PkiOptions#nodeName()}). */
    public CertificateAndKey nodeClient() {
        return obtain(nodeClient);
    }

    public PrivateKey serviceAccountSigningKey() {
        return serviceAccountKeys.getPrivate();
    }

    public PublicKey serviceAccountPublicKey() {
        return serviceAccountKeys.getPublic();
    }

    /** The kubelet client certificate of any node, kept as {@code kubelet-<node>.crt/.key}. */
    public CertificateAndKey nodeClientCertificate(String nodeName) {
        if (nodeName.equals(options.nodeName())) {
            // The same files as nodeClient(): issuing them twice at once could pair one key with the other certificate.
            return nodeClient();
        }
        return clientCertificate("kubelet-" + nodeName, NODE_USER_PREFIX + nodeName, List.of(NODES_GROUP));
    }

    /**
     * The serving certificate of a node's kubelet server, kept as {@code kubelet-<node>-serving.crt/.key}: issued by the
     * cluster CA (which the apiserver verifies kubelets against), CN {@code system:node:<node>} as upstream's kubelet
     * serving CSRs, and valid for the node's host names and addresses (the apiserver connects to an address and checks
     * that the certificate names it). Issued again when the names or addresses change.
     */
    public synchronized CertificateAndKey kubeletServingCertificate(String nodeName, List<String> dnsNames, List<InetAddress> ipAddresses) {
        requireNonNull(nodeName, "nodeName is null");
        List<String> names = List.copyOf(new LinkedHashSet<>(dnsNames));
        List<InetAddress> addresses = List.copyOf(new LinkedHashSet<>(ipAddresses));
        return loadOrIssue("kubelet-" + nodeName + "-serving",
                () -> authority.issueServingCertificate(NODE_USER_PREFIX + nodeName, names, addresses, options.keyAlgorithm(), LEAF_VALIDITY),
                certificate -> coversNames(certificate, names, addresses));
    }

    /**
     * A kubelet serving certificate as {@link #kubeletServingCertificate} makes it, but not stored: for a node on another
     * machine, which keeps it itself (the node join hands it out).
     */
    public CertificateAndKey issueKubeletServingCertificate(String nodeName, List<String> dnsNames, List<InetAddress> ipAddresses) {
        requireNonNull(nodeName, "nodeName is null");
        return authority.issueServingCertificate(NODE_USER_PREFIX + nodeName, List.copyOf(new LinkedHashSet<>(dnsNames)),
                List.copyOf(new LinkedHashSet<>(ipAddresses)), options.keyAlgorithm(), LEAF_VALIDITY);
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
                () -> authority.issueClientCertificate(user, expectedGroups, options.clientKeyAlgorithm(), LEAF_VALIDITY),
                certificate -> user.equals(commonName(certificate)) && expectedGroups.equals(organizations(certificate)));
    }

    /** Issues a client certificate that is not stored (e.g. for tests or short-lived tools). */
    public CertificateAndKey issueClientCertificate(String user, List<String> groups, Duration validity) {
        return authority.issueClientCertificate(user, groups, options.clientKeyAlgorithm(), validity);
    }

    /** The common name (user name) of a certificate's subject, or empty. */
    public static String commonName(X509Certificate certificate) {
        List<String> values = subjectValues(certificate, COMMON_NAME);
        return values.isEmpty() ? "" : values.get(0);
    }

    /** The organizations (groups) of a certificate's subject, in order. */
    public static List<String> organizations(X509Certificate certificate) {
        return subjectValues(certificate, ORGANIZATION);
    }

    private static List<String> subjectValues(X509Certificate certificate, String attributeType) {
        // Name ::= SEQUENCE OF RelativeDistinguishedName; RDN ::= SET OF AttributeTypeAndValue { type OID, value }.
        List<String> values = new ArrayList<>();
        for (Der.Element relativeName : Der.element(certificate.getSubjectX500Principal().getEncoded()).children()) {
            for (Der.Element attribute : relativeName.children()) {
                List<Der.Element> typeAndValue = attribute.children();
                if (typeAndValue.size() == 2 && typeAndValue.get(0).objectIdentifier().equals(attributeType)) {
                    values.add(text(typeAndValue.get(1)));
                }
            }
        }
        return List.copyOf(values);
    }

    /** A string value as is; any other value as {@code #} and the hex of its encoding, as RFC 4514 writes it. */
    private static String text(Der.Element value) {
        try {
            return value.string();
        } catch (IllegalArgumentException notAString) {
            return "#" + HexFormat.of().formatHex(value.encoded());
        }
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

    /**
     * Whether the current CA issued {@code certificate}. Every certificate issued here names the CA's key in its
     * authority key identifier, so comparing identifiers answers without a signature check, which for an ECDSA CA
     * costs a start tens of milliseconds of not yet compiled code per certificate. Certificates from elsewhere
     * (without the identifier) have their signature checked.
     */
    private boolean isSignedByAuthority(X509Certificate certificate) {
        if (!certificate.getIssuerX500Principal().equals(authority.certificate().getSubjectX500Principal())) {
            return false;
        }
        Optional<byte[]> authorityKey = authorityKeyIdentifier(certificate);
        Optional<byte[]> subjectKey = subjectKeyIdentifier(authority.certificate());
        if (authorityKey.isPresent() && subjectKey.isPresent()) {
            return Arrays.equals(authorityKey.get(), subjectKey.get());
        }
        try {
            certificate.verify(authority.certificate().getPublicKey());
            return true;
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    static Optional<byte[]> subjectKeyIdentifier(X509Certificate certificate) {
        byte[] extension = certificate.getExtensionValue("2.5.29.14");
        if (extension == null) {
            return Optional.empty();
        }
        try {
            // OCTET STRING { SubjectKeyIdentifier ::= OCTET STRING }
            Der.Element identifier = Der.element(Der.element(extension).content());
            return identifier.tag() == Der.OCTET_STRING ? Optional.of(identifier.content()) : Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static Optional<byte[]> authorityKeyIdentifier(X509Certificate certificate) {
        byte[] extension = certificate.getExtensionValue("2.5.29.35");
        if (extension == null) {
            return Optional.empty();
        }
        try {
            // OCTET STRING { AuthorityKeyIdentifier ::= SEQUENCE { keyIdentifier [0] IMPLICIT OCTET STRING OPTIONAL, ... } }
            for (Der.Element field : Der.element(Der.element(extension).content()).children()) {
                if (field.tag() == 0x80) {
                    return Optional.of(field.content());
                }
            }
            return Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
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
