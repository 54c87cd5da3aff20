package io.k4j.launcher;

import static java.util.Objects.requireNonNull;

import io.k4j.api.schema.Schemas;
import io.k4j.apiserver.ApiServer;
import io.k4j.apiserver.ApiServerConfig;
import io.k4j.apiserver.NonResourceHandler;
import io.k4j.apiserver.admission.AdmissionPlugins;
import io.k4j.apiserver.authentication.Authenticator;
import io.k4j.apiserver.authentication.impersonation.Impersonator;
import io.k4j.apiserver.authentication.serviceaccount.OidcDiscovery;
import io.k4j.apiserver.authentication.serviceaccount.ServiceAccountTokenAuthenticator;
import io.k4j.apiserver.authentication.serviceaccount.ServiceAccountTokenIssuer;
import io.k4j.apiserver.authentication.serviceaccount.TokenRequestHandler;
import io.k4j.apiserver.authentication.token.BearerTokenAuthenticator;
import io.k4j.apiserver.authentication.token.TokenAuthenticator;
import io.k4j.apiserver.authentication.token.TokenFileAuthenticator;
import io.k4j.apiserver.authentication.x509.X509Authenticator;
import io.k4j.apiserver.authorization.Authorizer;
import io.k4j.apiserver.authorization.UnionAuthorizer;
import io.k4j.apiserver.authorization.node.NodeAuthorizer;
import io.k4j.apiserver.authorization.rbac.BootstrapPolicy;
import io.k4j.apiserver.authorization.rbac.ClusterRoleAggregator;
import io.k4j.apiserver.authorization.rbac.EscalationCheck;
import io.k4j.apiserver.authorization.rbac.RbacAuthorizer;
import io.k4j.apiserver.authorization.rbac.RbacPolicySource;
import io.k4j.apiserver.discovery.HealthCheck;
import io.k4j.apiserver.pki.ClusterPki;
import io.k4j.apiserver.pki.KeyAlgorithm;
import io.k4j.apiserver.pki.Kubeconfig;
import io.k4j.apiserver.pki.PkiOptions;
import io.k4j.apiserver.pki.TlsContexts;
import io.k4j.apiserver.kubelet.KubeletClient;
import io.k4j.apiserver.nodejoin.NodeJoinHandler;
import io.k4j.apiserver.nodejoin.NodeJoinToken;
import io.k4j.apiserver.registry.core.pod.PodLogHandler;
import io.k4j.apiserver.registry.core.pod.PodPortForwardHandler;
import io.k4j.apiserver.registry.core.pod.PodStreamHandler;
import io.k4j.apiserver.registry.authentication.SelfSubjectReviewResource;
import io.k4j.apiserver.registry.authentication.TokenReviewResource;
import io.k4j.apiserver.registry.authorization.LocalSubjectAccessReviewResource;
import io.k4j.apiserver.registry.authorization.SelfSubjectAccessReviewResource;
import io.k4j.apiserver.registry.authorization.SelfSubjectRulesReviewResource;
import io.k4j.apiserver.registry.authorization.SubjectAccessReviewResource;
import io.k4j.apiserver.registry.core.CoreResources;
import io.k4j.apiserver.registry.core.service.ClusterIpRange;
import io.k4j.apiserver.registry.core.service.NodePortRange;
import io.k4j.apiserver.registry.core.service.ServiceAllocator;
import io.k4j.apiserver.registry.generic.ResourceDefinition;
import io.k4j.apiserver.registry.generic.SubresourceHandler;
import io.k4j.apiserver.registry.groups.CorePodTemplateRules;
import io.k4j.apiserver.registry.groups.GroupResources;
import io.k4j.apiserver.registry.scale.ScaleSubresource;
import io.k4j.storage.KeyValueStore;
import io.k4j.launcher.inprocess.InProcessHttpClientFactory;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running control plane: storage ▶ apiserver ▶ bootstrap objects, each step started only once the previous
 * one is ready (k3s orders its start-up the same way). Closing it stops everything in reverse order.
 */
final class ControlPlane implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger("server");
    private static final String CLUSTER_NAME = "k4j";
    private static final String ADMIN_USER = "kubernetes-admin";
    /** How long the apiserver waits for a kubelet to accept a connection and answer (logs, exec, port-forward). */
    private static final Duration KUBELET_CONNECT_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration TRAINING_STEP_TIMEOUT = Duration.ofSeconds(60);

    private final KeyValueStore storage;
    private final ApiServer apiServer;
    private final RbacChangeReactor rbacChanges;
    private final ComponentClients componentClients;
    private final List<Component> components;
    private final CountDownLatch terminated = new CountDownLatch(1);

    private ControlPlane(KeyValueStore storage, ApiServer apiServer, RbacChangeReactor rbacChanges, ComponentClients componentClients,
            List<Component> components) {
        this.storage = requireNonNull(storage, "storage is null");
        this.apiServer = requireNonNull(apiServer, "apiServer is null");
        this.rbacChanges = requireNonNull(rbacChanges, "rbacChanges is null");
        this.componentClients = requireNonNull(componentClients, "componentClients is null");
        this.components = List.copyOf(requireNonNull(components, "components is null"));
    }

    static ControlPlane start(ServerConfig config) throws Exception {
        long startedNanos = System.nanoTime();
        InstantSource clock = InstantSource.system();
        DataDirectory dataDirectory = config.dataDirectory().create();
        ServiceCidr serviceCidr = ServiceCidr.parse(config.serviceClusterIpRange());
        ServiceAllocator serviceAllocator = new ServiceAllocator(ClusterIpRange.parse(config.serviceClusterIpRange()),
                NodePortRange.parse(config.serviceNodePortRange()));
        String hostName = InetAddress.getLocalHost().getHostName();

        // The PKI (key generation on a first start, PEM parsing otherwise), the storage (for etcd: a gRPC client's
        // classes and a connection) and the apiserver's configuration do not depend on each other until the
        // configuration is built, so they are prepared at the same time.
        PkiOptions pkiOptions = pkiOptions(config, hostName, serviceCidr, clock);
        FutureTask<ClusterPki> pkiTask = new FutureTask<>(() -> ClusterPki.loadOrCreate(dataDirectory.pkiDirectory(), pkiOptions));
        Thread.ofPlatform().name("pki-load").start(pkiTask);
        LOG.info("opening storage: {}", StorageBackends.describe(config.datastoreEndpoint(), dataDirectory));
        FutureTask<KeyValueStore> storageTask = new FutureTask<>(() -> {
            KeyValueStore opened = StorageBackends.open(config.datastoreEndpoint(), dataDirectory, config.etcdCompactionInterval());
            LOG.info("storage ready at revision {}", opened.currentRevision());
            LOG.debug("start-up: storage open at +{} ms", elapsedMillis(startedNanos));
            return opened;
        });
        Thread.ofPlatform().name("storage-open").start(storageTask);

        ClusterPki pki;
        try {
            pki = pkiTask.get();
        } catch (ExecutionException e) {
            closeWhenOpened(storageTask);
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
        LOG.info("PKI ready in {}", dataDirectory.pkiDirectory());
        LOG.debug("start-up: PKI loaded at +{} ms", elapsedMillis(startedNanos));

        NodeJoinToken joinToken = NodeJoinToken.loadOrCreate(dataDirectory.nodeToken(), pki.caCertificate());

        LateBoundRegistry registry = new LateBoundRegistry();
        ServiceAccountTokenIssuer issuer = new ServiceAccountTokenIssuer(pki.serviceAccountSigningKey(), pki.serviceAccountPublicKey(),
                ServiceAccountTokenIssuer.DEFAULT_ISSUER, clock);
        List<String> apiAudiences = List.of(ServiceAccountTokenIssuer.DEFAULT_ISSUER);

        List<TokenAuthenticator> tokenAuthenticators = new ArrayList<>();
        if (config.tokenAuthFile().isPresent()) {
            tokenAuthenticators.add(TokenFileAuthenticator.load(config.tokenAuthFile().get()));
        }
        tokenAuthenticators.add(new ServiceAccountTokenAuthenticator(List.of(pki.serviceAccountPublicKey()),
                List.of(ServiceAccountTokenIssuer.DEFAULT_ISSUER, ServiceAccountTokenIssuer.LEGACY_ISSUER), apiAudiences, registry, clock));
        List<Authenticator> authenticators = new ArrayList<>();
        authenticators.add(new X509Authenticator(clock));
        tokenAuthenticators.forEach(tokenAuthenticator -> authenticators.add(new BearerTokenAuthenticator(tokenAuthenticator, apiAudiences)));

        RbacPolicySource rbacPolicy = RbacPolicySource.of(registry);
        RbacAuthorizer rbac = new RbacAuthorizer(rbacPolicy);
        List<Authorizer> authorizers = List.of(new NodeAuthorizer(registry), rbac);
        Authorizer authorizer = new UnionAuthorizer(authorizers);
        Impersonator impersonator = new Impersonator(authorizer);

        List<ResourceDefinition> resources = new ArrayList<>(new CoreResources(registry, clock, config.eventTtl(), serviceAllocator).definitions());
        resources.addAll(new GroupResources(clock, new CorePodTemplateRules(), config.eventTtl()).definitions());
        resources = withHandler(resources, "serviceaccounts", new TokenRequestHandler(issuer, apiAudiences, registry, true));
        resources = withHandler(resources, "replicationcontrollers", ScaleSubresource.forLabelMap());
        KubeletClient kubelets = new KubeletClient(registry,
                () -> TlsContexts.clientContext(List.of(pki.caCertificate()), Optional.of(pki.apiServerKubeletClient())), KUBELET_CONNECT_TIMEOUT);
        for (SubresourceHandler podConnection : List.of(new PodLogHandler(kubelets), PodStreamHandler.exec(kubelets),
                PodStreamHandler.attach(kubelets), new PodPortForwardHandler(kubelets))) {
            resources = withHandler(resources, "pods", podConnection);
        }

        OidcDiscovery oidc = new OidcDiscovery(ServiceAccountTokenIssuer.DEFAULT_ISSUER, kubeconfigUrl(config, config.securePort()) + OidcDiscovery.JWKS_PATH, List.of(pki.serviceAccountPublicKey()));
        BootstrapReadiness bootstrapped = new BootstrapReadiness();
        KeyValueStore storage;
        try {
            storage = storageTask.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
        ApiServerConfig apiServerConfig = ApiServerConfig.builder(storage,
                        TlsContexts.keyStore(pki.apiServer(), List.of(pki.caCertificate())), TlsContexts.KEY_STORE_PASSWORD)
                .listen(config.bindAddress().getHostAddress(), config.securePort())
                .clientCaCertificates(List.of(pki.caCertificate()))
                .authenticators(authenticators)
                .impersonator((requester, request) -> impersonator.impersonate(requester, request.headers()))
                .authorizers(authorizers)
                .admissionPlugins(AdmissionPlugins.create(registry, new EscalationCheck(rbacPolicy, rbac, authorizer)))
                .resources(resources)
                .createOnlyResources(List.of(
                        new TokenReviewResource(tokenAuthenticators, apiAudiences),
                        new SelfSubjectReviewResource(clock),
                        new SubjectAccessReviewResource(authorizer),
                        new SelfSubjectAccessReviewResource(authorizer),
                        new LocalSubjectAccessReviewResource(authorizer),
                        new SelfSubjectRulesReviewResource(rbac)))
                .nonResourceHandlers(List.of(
                        json(OidcDiscovery.CONFIGURATION_PATH, oidc.openidConfiguration()),
                        json(OidcDiscovery.JWKS_PATH, oidc.jwks())))
                .preAuthenticationHandlers(List.of(new NodeJoinHandler(joinToken, pki, config.clusterCidr())))
                .healthChecks(List.of(HealthCheck.of("poststarthook/k4j-bootstrap", bootstrapped::check)))
                .clock(clock)
                .build();
        LOG.debug("start-up: apiserver configured at +{} ms", elapsedMillis(startedNanos));
        ApiServer apiServer = new ApiServer(apiServerConfig);
        LOG.debug("start-up: apiserver constructed at +{} ms", elapsedMillis(startedNanos));
        registry.bind(apiServer.registry());
        apiServer.start();
        LOG.debug("start-up: watch caches loaded and listening at +{} ms", elapsedMillis(startedNanos));
        LOG.info("apiserver serving on https://{}:{}", config.bindAddress().getHostAddress(), apiServer.port());

        new Bootstrap(registry).run(serviceCidr.firstAddress().getHostAddress(), config.advertiseAddress(), apiServer.port(), pki.caCertificatePem(),
                new Bootstrap.RbacPolicy(BootstrapPolicy.clusterRoles(), BootstrapPolicy.clusterRoleBindings(),
                        BootstrapPolicy.namespacedRoles(), BootstrapPolicy.namespacedRoleBindings()));
        new Bootstrap(registry).ensureClusterDnsService(ClusterDnsComponent.serviceAddress(config, serviceCidr));
        ClusterRoleAggregator aggregator = new ClusterRoleAggregator(registry);
        aggregator.reconcile();
        LOG.debug("start-up: bootstrap objects and cluster role aggregation done at +{} ms", elapsedMillis(startedNanos));
        RbacChangeReactor rbacChanges = new RbacChangeReactor(apiServer, rbacPolicy, aggregator);

        // The port the apiserver listens on, which --secure-port 0 leaves to the system.
        writeKubeconfigs(config, dataDirectory, pki, kubeconfigUrl(config, apiServer.port()));
        bootstrapped.markDone();
        LOG.info("k4j server ready in {} ms; kubeconfig: {}", elapsedMillis(startedNanos), dataDirectory.adminKubeconfig());
        LOG.info("node join token in {}; add a node with: k4j agent --server={} --token=<the token>", dataDirectory.nodeToken(),
                joinUrl(config, apiServer.port()));
        // The JVM's own start (class loading before main) is part of what users wait for, and CPU time tells a
        // slow start on a busy machine from a start that does too much.
        if (LOG.isDebugEnabled()) {
            ProcessHandle.Info process = ProcessHandle.current().info();
            LOG.debug("start-up: ready {} ms after the process started, {} ms of CPU",
                    process.startInstant().map(started -> Duration.between(started, clock.instant()).toMillis()).orElse(-1L),
                    process.totalCpuDuration().map(Duration::toMillis).orElse(-1L));
        }

        // Deferred until ready because both take seconds of CPU that a two-core machine would otherwise split with the
        // start-up: the component identities' keys, and the schemas that writes with field validation and strategic
        // merge patches need (a request that needs them first waits for them).
        pki.prepareAll();
        Thread.ofPlatform().daemon().name("schemas-warm-up").start(Schemas::builtin);

        ComponentClients componentClients = new ComponentClients("https://127.0.0.1:" + apiServer.port(), pki, new InProcessHttpClientFactory(apiServer));
        List<Component> components = Components.create(config, componentClients, hostName);
        ControlPlane controlPlane = new ControlPlane(storage, apiServer, rbacChanges, componentClients, components);
        for (Component component : components) {
            component.start();
            LOG.info("started {} at +{} ms", component.name(), elapsedMillis(startedNanos));
        }
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(controlPlane::close));
        return controlPlane;
    }

    /** Closes the storage once its opening finishes, without waiting for it: start-up has already failed. */
    private static void closeWhenOpened(FutureTask<KeyValueStore> storageTask) {
        Thread.ofVirtual().name("storage-close").start(() -> {
            try {
                storageTask.get().close();
            } catch (ExecutionException | InterruptedException e) {
                // Nothing was opened, or nothing can be done about it now.
            }
        });
    }

    private static long elapsedMillis(long startedNanos) {
        return (System.nanoTime() - startedNanos) / 1_000_000;
    }

    /**
     * ECDSA P-256 for the CA, the serving certificate and the service-account keys (a tenth of the time an RSA key
     * takes to make; Go, the JDK and kubeadm's {@code encryptionAlgorithm} all accept them), RSA for client
     * certificates: fabric8 reads a client key as RSA unless told its algorithm, so kubeconfigs with EC keys would
     * break fabric8-based clients.
     */
    private static PkiOptions pkiOptions(ServerConfig config, String hostName, ServiceCidr serviceCidr, InstantSource clock) throws IOException {
        List<String> extraNames = new ArrayList<>();
        List<InetAddress> extraAddresses = new ArrayList<>();
        for (String name : config.tlsSubjectAlternativeNames()) {
            if (name.chars().allMatch(character -> Character.isDigit(character) || character == '.' || character == ':')) {
                extraAddresses.add(InetAddress.getByName(name));
            } else {
                extraNames.add(name);
            }
        }
        if (config.advertiseAddress().isPresent()) {
            extraAddresses.add(InetAddress.getByName(config.advertiseAddress().get()));
        }
        if (!config.bindAddress().isAnyLocalAddress()) {
            extraAddresses.add(config.bindAddress());
        }
        return new PkiOptions(hostName, hostName, serviceCidr.firstAddress(), "cluster.local", extraNames, extraAddresses, KeyAlgorithm.ECDSA_P256,
                KeyAlgorithm.RSA_2048, clock);
    }

    private static List<ResourceDefinition> withHandler(List<ResourceDefinition> definitions, String plural, SubresourceHandler handler) {
        List<ResourceDefinition> result = new ArrayList<>();
        boolean found = false;
        for (ResourceDefinition definition : definitions) {
            if (definition.strategy().type().gvr().group().isEmpty() && definition.strategy().type().plural().equals(plural)) {
                List<SubresourceHandler> handlers = new ArrayList<>(definition.subresourceHandlers());
                handlers.add(handler);
                result.add(definition.withSubresourceHandlers(handlers));
                found = true;
            } else {
                result.add(definition);
            }
        }
        if (!found) {
            throw new IllegalStateException("no definition for core resource " + plural);
        }
        return result;
    }

    private static NonResourceHandler json(String path, byte[] body) {
        return new NonResourceHandler() {
            @Override
            public String path() {
                return path;
            }

            @Override
            public Response get(Map<String, List<String>> query) {
                return new Response(200, "application/json", body);
            }
        };
    }

    /** The admin kubeconfig in the data directory, and at {@code --write-kubeconfig} (default ~/.kube/config) when absent there. */
    private static void writeKubeconfigs(ServerConfig config, DataDirectory dataDirectory, ClusterPki pki, String serverUrl) throws IOException {
        Kubeconfig.write(dataDirectory.adminKubeconfig(), CLUSTER_NAME, serverUrl, pki.caCertificatePem(),
                pki.admin().certificatePem(), pki.admin().privateKeyPem(), ADMIN_USER, ADMIN_USER + "@" + CLUSTER_NAME);
        if (config.writeKubeconfig().isPresent()) {
            Path target = config.writeKubeconfig().get();
            if (!Files.exists(target)) {
                Files.createDirectories(target.toAbsolutePath().getParent());
                Kubeconfig.write(target, CLUSTER_NAME, serverUrl, pki.caCertificatePem(),
                        pki.admin().certificatePem(), pki.admin().privateKeyPem(), ADMIN_USER, ADMIN_USER + "@" + CLUSTER_NAME);
                LOG.info("wrote admin kubeconfig to {}", target);
            }
        }
    }

    /** Where kubeconfigs point: loopback when the apiserver listens there (as k3s does), else its bind address. */
    private static String kubeconfigUrl(ServerConfig config, int port) {
        InetAddress bind = config.bindAddress();
        String host = bind.isAnyLocalAddress() || bind.isLoopbackAddress() ? "127.0.0.1" : bind.getHostAddress();
        return "https://" + hostForUrl(host) + ":" + port;
    }

    /** The URL other machines reach the apiserver on: its bind address, else the advertise address. */
    private static String joinUrl(ServerConfig config, int port) {
        InetAddress bind = config.bindAddress();
        String host = bind.isAnyLocalAddress() ? config.advertiseAddress().orElse("127.0.0.1") : bind.getHostAddress();
        return "https://" + hostForUrl(host) + ":" + port;
    }

    private static String hostForUrl(String address) {
        return address.contains(":") ? "[" + address + "]" : address;
    }

    /** Runs the start-up archive's training workload against this control plane and its components. */
    void train() {
        try {
            new TrainingWorkload(componentClients.admin(), TRAINING_STEP_TIMEOUT).run();
        } catch (RuntimeException e) {
            LOG.warn("training workload stopped early, the archive covers less: {}", e.toString());
        }
    }

    void awaitTermination() throws InterruptedException {
        terminated.await();
    }

    @Override
    public void close() {
        if (terminated.getCount() == 0) {
            return;
        }
        LOG.info("shutting down");
        for (Component component : components.reversed()) {
            component.close();
        }
        componentClients.close();
        rbacChanges.close();
        try {
            apiServer.close();
        } catch (Exception e) {
            LOG.warn("apiserver did not stop cleanly: {}", e.getMessage());
        }
        storage.close();
        terminated.countDown();
    }

    /** Ready once the bootstrap objects exist, so clients never see a cluster without its system namespaces. */
    private static final class BootstrapReadiness {
        private volatile boolean done;

        void markDone() {
            done = true;
        }

        void check() {
            if (!done) {
                throw new IllegalStateException("bootstrap objects are not created yet");
            }
        }
    }
}
