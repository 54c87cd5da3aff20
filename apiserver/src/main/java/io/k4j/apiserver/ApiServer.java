package io.k4j.apiserver;

import static java.util.Objects.requireNonNull;

import io.k4j.api.resource.GroupVersionResource;
import io.k4j.apiserver.discovery.DiscoveryDocuments;
import io.k4j.apiserver.discovery.HealthCheck;
import io.k4j.apiserver.discovery.HealthEndpoint;
import io.k4j.apiserver.endpoints.ResourceHandler;
import io.k4j.apiserver.filters.AuthenticationFilter;
import io.k4j.apiserver.filters.AuthorizationFilter;
import io.k4j.apiserver.metrics.ApiServerMetrics;
import io.k4j.apiserver.metrics.InstrumentedKeyValueStore;
import io.k4j.apiserver.registry.generic.AdmissionChain;
import io.k4j.apiserver.registry.generic.CreateOnlyResource;
import io.k4j.apiserver.registry.generic.GenericStore;
import io.k4j.apiserver.registry.generic.ResourceDefinition;
import io.k4j.apiserver.registry.generic.StoreRegistry;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.net.URI;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.alpn.server.ALPNServerConnectionFactory;
import org.eclipse.jetty.http2.HTTP2Cipher;
import org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The Kubernetes API server: HTTPS (HTTP/2 by ALPN, and HTTP/1.1) on Jetty, serving the configured resources
 * through the request pipeline (authentication, impersonation, authorization, admission, generic stores with
 * watch caches), discovery, health, metrics and OpenAPI.
 *
 * <p>Usage: {@code ApiServer server = new ApiServer(config); server.start(); … server.close();}. Requests are
 * served on virtual threads. Thread-safe.
 */
public final class ApiServer implements AutoCloseable {
    private final ApiServerConfig config;
    private final ApiServerMetrics metrics;
    private final StoreRegistry registry;
    private final AtomicBoolean shuttingDown = new AtomicBoolean();
    private final Server server;
    private final ServerConnector connector;
    private final RequestPipeline pipeline;

    public ApiServer(ApiServerConfig config) {
        this.config = requireNonNull(config, "config is null");
        List<GenericStore> stores = new ArrayList<>();
        this.metrics = new ApiServerMetrics(() -> stores.stream()
                .map(store -> new ApiServerMetrics.WatcherCount(store.type().gvk().group(), store.type().gvk().version(), store.type().kind(), store.cache().watcherCount()))
                .toList());
        this.registry = new StoreRegistry(config.resources(), config.storage(), new AdmissionChain(config.admissionPlugins()), config.clock(),
                config.watchCacheCapacity(), (storage, resource) -> new InstrumentedKeyValueStore(storage, metrics, resource.groupResource()));
        stores.addAll(registry.all());

        ResourceHandler resources = new ResourceHandler(registry, config.createOnlyResources(), config.unknownFields(), config.strategicMergePatcher(),
                metrics, config.watchBookmarkInterval());
        List<DiscoveryDocuments.Entry> entries = new ArrayList<>();
        for (ResourceDefinition definition : config.resources()) {
            entries.add(DiscoveryDocuments.entry(definition));
        }
        for (CreateOnlyResource resource : config.createOnlyResources()) {
            entries.add(new DiscoveryDocuments.Entry(resource.type(), List.of()));
        }
        Map<String, NonResourceHandler> extra = new HashMap<>();
        for (NonResourceHandler handler : config.nonResourceHandlers()) {
            if (extra.put(handler.path(), handler) != null) {
                throw new IllegalArgumentException("two handlers for " + handler.path());
            }
        }
        List<HealthCheck> liveness = new ArrayList<>();
        liveness.add(HealthCheck.of("ping", () -> {}));
        liveness.add(HealthCheck.of("etcd", () -> config.storage().currentRevision()));
        liveness.addAll(config.healthChecks());
        List<HealthCheck> readiness = new ArrayList<>(liveness);
        readiness.add(HealthCheck.of("shutdown", () -> {
            if (shuttingDown.get()) {
                throw new IllegalStateException("the server is shutting down");
            }
        }));
        this.pipeline = new RequestPipeline(
                new AuthenticationFilter(config.authenticators(), config.allowAnonymous()),
                config.impersonator(),
                new AuthorizationFilter(config.authorizers()),
                metrics,
                resources,
                new DiscoveryDocuments(entries),
                config.version(),
                config.openApi(),
                extra,
                config.preAuthenticationHandlers(),
                List.of(new HealthEndpoint("healthz", liveness), new HealthEndpoint("livez", liveness), new HealthEndpoint("readyz", readiness)),
                exchange -> {
                    String host = exchange.header("host");
                    return host != null ? host : config.host() + ":" + port();
                });

        QueuedThreadPool threads = new QueuedThreadPool();
        threads.setName("apiserver");
        threads.setVirtualThreadsExecutor(Executors.newVirtualThreadPerTaskExecutor());
        this.server = new Server(threads);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendDateHeader(true);
        SecureRequestCustomizer secure = new SecureRequestCustomizer();
        secure.setSniHostCheck(false);
        http.addCustomizer(secure);
        HttpConnectionFactory http11 = new HttpConnectionFactory(http);
        HTTP2ServerConnectionFactory http2 = new HTTP2ServerConnectionFactory(http);
        http2.setMaxConcurrentStreams(1000);
        ALPNServerConnectionFactory alpn = new ALPNServerConnectionFactory();
        alpn.setDefaultProtocol(http11.getProtocol());
        SslConnectionFactory tls = new SslConnectionFactory(sslContextFactory(config), alpn.getProtocol());
        this.connector = new ServerConnector(server, tls, alpn, http2, http11);
        connector.setHost(config.host());
        connector.setPort(config.port());
        // Longer than the longest watch (upstream ends watches within an hour), so quiet watches are not cut.
        connector.setIdleTimeout(Duration.ofMinutes(65).toMillis());
        server.addConnector(connector);
        int maxBody = config.maxRequestBodyBytes();
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                JettyExchange exchange = new JettyExchange(request, response, callback, maxBody);
                EndPoint.SslSessionData tlsData = (EndPoint.SslSessionData) request.getAttribute(EndPoint.SslSessionData.ATTRIBUTE);
                X509Certificate[] peer = tlsData == null ? null : tlsData.peerCertificates();
                Runnable serve = () -> {
                    try {
                        pipeline.handle(exchange, peer == null ? List.of() : List.of(peer), Request.getRemoteAddr(request), exchange);
                        exchange.finish();
                    } catch (RuntimeException | Error e) {
                        callback.failed(e);
                        throw e;
                    }
                };
                if (request.getHeaders().contains(HttpHeader.UPGRADE)) {
                    // Jetty switches a connection's protocol only once the exchange completed *and* this method
                    // returned, so a request that may switch (WebSocket) is served on a thread of its own, which
                    // then keeps the switched connection.
                    Thread.ofVirtual().name("apiserver-upgrade").start(serve);
                } else {
                    serve.run();
                }
                return true;
            }
        });
    }

    private static SslContextFactory.Server sslContextFactory(ApiServerConfig config) {
        SslContextFactory.Server ssl = new SslContextFactory.Server();
        ssl.setKeyStore(config.servingKeyStore());
        ssl.setKeyStorePassword(config.servingKeyPassword());
        ssl.setKeyManagerPassword(config.servingKeyPassword());
        // HTTP/2's usable suites first; among them AES-128-GCM before the JDK's default AES-256-GCM, as Go's server
        // prefers it on machines with AES instructions: 10 rounds a block instead of 14, for every byte served.
        ssl.setCipherComparator(HTTP2Cipher.COMPARATOR.thenComparingInt(suite -> suite.contains("_AES_128_GCM_") ? 0 : 1));
        ssl.setUseCipherSuitesOrder(true);
        if (!config.clientCaCertificates().isEmpty()) {
            try {
                KeyStore trust = KeyStore.getInstance("PKCS12");
                trust.load(null, null);
                int index = 0;
                for (X509Certificate certificate : config.clientCaCertificates()) {
                    trust.setCertificateEntry("client-ca-" + index++, certificate);
                }
                ssl.setTrustStore(trust);
            } catch (Exception e) {
                throw new IllegalArgumentException("cannot build the client CA trust store", e);
            }
            ssl.setWantClientAuth(true);
        }
        return ssl;
    }

    /** Loads every watch cache, then starts listening. */
    public void start() throws Exception {
        registry.start();
        server.start();
    }

    /** The port listened on (the chosen one when configured with 0). */
    public int port() {
        return connector.getLocalPort();
    }

    /** {@code https://<host>:<port>}. */
    public URI uri() {
        String host = config.host().equals("0.0.0.0") ? "127.0.0.1" : config.host();
        return URI.create("https://" + new InetSocketAddress(host, port()).getHostString() + ":" + port());
    }

    /**
     * A connection for a client in this JVM, authenticated by {@code clientCertificates} (the leaf first; empty when
     * its requests carry their own credentials) as a TLS connection would be.
     *
     * @throws IllegalArgumentException when the leaf is not signed by one of the server's client CAs
     */
    public InProcessConnection inProcessConnection(List<X509Certificate> clientCertificates) {
        return new InProcessConnection(pipeline, clientCertificates, config.clientCaCertificates(), config.maxRequestBodyBytes());
    }

    /** In-process access to the served resources (for subresource handlers, admission, bootstrap). */
    public StoreRegistry registry() {
        return registry;
    }

    public ApiServerMetrics metrics() {
        return metrics;
    }

    public java.util.Optional<GenericStore> store(GroupVersionResource resource) {
        return registry.genericStore(resource);
    }

    /** Stops serving (readyz fails first), ends watches and closes the watch caches; the storage stays open. */
    @Override
    public void close() throws Exception {
        shuttingDown.set(true);
        try {
            registry.close();
        } finally {
            server.stop();
        }
    }
}
