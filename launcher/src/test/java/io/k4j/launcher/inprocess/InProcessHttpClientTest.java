package io.k4j.launcher.inprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.http.StandardHttpRequest;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.k4j.api.resource.GroupVersionResource;
import io.k4j.apiserver.ApiServer;
import io.k4j.apiserver.ApiServerConfig;
import io.k4j.apiserver.authentication.Authenticator;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authentication.x509.X509Authenticator;
import io.k4j.apiserver.pki.Pem;
import io.k4j.apiserver.registry.generic.GenericStrategy;
import io.k4j.apiserver.testing.TestAuthorizers;
import io.k4j.apiserver.testing.TestCertificates;
import io.k4j.apiserver.testing.TestResources;
import io.k4j.controllerkit.requests.RawApi;
import io.k4j.controllerkit.requests.SelfTimedHttpClient;
import io.k4j.storage.sqlite.SqliteKeyValueStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** fabric8 clients on the in-process transport against a real apiserver: requests, identities, errors and watches. */
class InProcessHttpClientTest {
    private static final GroupVersionResource CONFIG_MAPS = new GroupVersionResource("", "v1", "configmaps");

    @TempDir
    static Path directory;

    /** Short, so that a watch of a few seconds sees several. */
    private static final Duration BOOKMARK_INTERVAL = Duration.ofMillis(300);
    private static TestCertificates certificates;
    private static SqliteKeyValueStore storage;
    private static ApiServer server;

    private static final Authenticator TOKENS = request -> switch (String.valueOf(request.header("authorization"))) {
        case "Bearer bob-token" -> Optional.of(UserInfo.of("bob", List.of(UserInfo.AUTHENTICATED_GROUP)));
        default -> Optional.empty();
    };

    @BeforeAll
    static void start() throws Exception {
        certificates = new TestCertificates();
        storage = SqliteKeyValueStore.open(directory.resolve("state.db"));
        InstantSource clock = InstantSource.system();
        ApiServerConfig config = ApiServerConfig.builder(storage, certificates.servingKeyStore(), TestCertificates.PASSWORD)
                .listen("127.0.0.1", 0)
                .clientCaCertificates(List.of(certificates.caCertificate()))
                .authenticators(List.of(new X509Authenticator(clock), TOKENS))
                .authorizers(List.of(TestAuthorizers.MASTERS_OR_READ_CONFIG_MAPS))
                .resources(List.of(new GenericStrategy(TestResources.CONFIG_MAPS, clock).definition()))
                .watchBookmarkInterval(BOOKMARK_INTERVAL)
                .build();
        server = new ApiServer(config);
        server.start();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
        storage.close();
    }

    private static KubernetesClient client(TestCertificates.ClientCredentials identity, String token) {
        ConfigBuilder builder = new ConfigBuilder(Config.empty()).withMasterUrl("https://127.0.0.1:" + server.port()).withRequestRetryBackoffLimit(0);
        if (identity != null) {
            builder.withClientCertData(base64(Pem.encodeCertificates(List.of(identity.certificate()))))
                    .withClientKeyData(base64(Pem.encodePrivateKey(identity.key())))
                    .withClientKeyAlgo(identity.key().getAlgorithm());
        }
        if (token != null) {
            builder.withOauthToken(token);
        }
        return new KubernetesClientBuilder().withConfig(builder.build()).withHttpClientFactory(new InProcessHttpClientFactory(server)).build();
    }

    private static KubernetesClient admin() {
        return client(certificates.clientCredentials("admin", List.of(UserInfo.MASTERS_GROUP)), null);
    }

    private static String base64(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    private static ConfigMap configMap(String name, String value) {
        return new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata().withData(Map.of("k", value)).build();
    }

    @Test
    void writesAndReadsAsTheCertificatesUser() {
        try (KubernetesClient admin = admin()) {
            ConfigMap created = admin.configMaps().inNamespace("default").resource(configMap("written", "v1")).create();
            assertThat(created.getMetadata().getUid()).isNotEmpty();
            assertThat(created.getMetadata().getManagedFields()).isNotEmpty();

            admin.configMaps().inNamespace("default").withName("written").edit(map -> {
                map.setData(Map.of("k", "v2"));
                return map;
            });
            assertThat(admin.configMaps().inNamespace("default").withName("written").get().getData()).containsEntry("k", "v2");
            assertThat(admin.configMaps().inNamespace("default").withLabel("absent").list().getItems()).isEmpty();
            assertThat(admin.configMaps().inNamespace("default").list().getItems()).extracting(map -> map.getMetadata().getName()).contains("written");
        }
    }

    @Test
    void aRequestWaitsForItsOwnTimeoutElseTheDefaultAndAStreamingOneForever() {
        StandardHttpRequest.Builder request = new StandardHttpRequest.Builder();
        request.uri("https://127.0.0.1/api/v1/namespaces");
        assertThat(InProcessHttpClient.deadline(request.build())).contains(InProcessHttpClient.DEFAULT_REQUEST_TIMEOUT);

        request.timeout(3, TimeUnit.SECONDS);
        assertThat(InProcessHttpClient.deadline(request.build())).contains(Duration.ofSeconds(3));

        request.forStreaming();
        assertThat(InProcessHttpClient.deadline(request.build())).isEmpty();
    }

    @Test
    void rawRequestsWaitForTheClientsOwnDeadlines() throws Exception {
        try (KubernetesClient admin = admin()) {
            // RawApi then waits with no timer of its own: the client fails an answer that outlives its timeout.
            assertThat(admin.getHttpClient()).isInstanceOf(SelfTimedHttpClient.class);
            new RawApi(admin).write("POST", "/api/v1/namespaces/default/configmaps", "application/json",
                    "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"raw\"},\"data\":{\"k\":\"v\"}}");
            assertThat(new RawApi(admin).get("/api/v1/namespaces/default/configmaps/raw").path("data").path("k").asText()).isEqualTo("v");
        }
    }

    @Test
    void answersErrorsWithTheServersStatus() {
        try (KubernetesClient admin = admin(); KubernetesClient bob = client(null, "bob-token"); KubernetesClient anonymous = client(null, null)) {
            assertThat(admin.configMaps().inNamespace("default").withName("missing").get()).isNull();
            admin.configMaps().inNamespace("default").resource(configMap("twice", "v")).create();
            assertThatThrownBy(() -> admin.configMaps().inNamespace("default").resource(configMap("twice", "v")).create())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                        assertThat(e.getCode()).isEqualTo(409);
                        assertThat(e.getStatus().getReason()).isEqualTo("AlreadyExists");
                    });
            assertThat(bob.configMaps().inNamespace("default").withName("twice").get()).isNotNull();
            assertThatThrownBy(() -> bob.configMaps().inNamespace("default").resource(configMap("bobs", "v")).create())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
            assertThatThrownBy(() -> anonymous.configMaps().inNamespace("default").list())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(401));
        }
    }

    @Test
    void refusesACertificateFromAnotherAuthority() {
        TestCertificates other = new TestCertificates();
        assertThatThrownBy(() -> client(other.clientCredentials("mallory", List.of(UserInfo.MASTERS_GROUP)), null).configMaps().list())
                .hasStackTraceContaining("not signed by a client CA of this server");
    }

    @Test
    void watchesDeliverEventsAndEndOnTheServerWhenClosed() throws Exception {
        try (KubernetesClient admin = admin()) {
            BlockingQueue<String> events = new LinkedBlockingQueue<>();
            CompletableFuture<WatcherException> closed = new CompletableFuture<>();
            Watch watch = admin.configMaps().inNamespace("watched").watch(new Watcher<>() {
                @Override
                public void eventReceived(Action action, ConfigMap map) {
                    events.add(action + " " + map.getMetadata().getName() + " " + map.getData().get("k"));
                }

                @Override
                public void onClose(WatcherException cause) {
                    closed.complete(cause);
                }
            });
            await().atMost(Duration.ofSeconds(10)).until(() -> watcherCount() > 0);
            admin.configMaps().inNamespace("watched").resource(configMap("first", "a")).create();
            admin.configMaps().inNamespace("watched").withName("first").edit(map -> {
                map.setData(Map.of("k", "b"));
                return map;
            });
            admin.configMaps().inNamespace("watched").withName("first").delete();
            assertThat(events.poll(10, TimeUnit.SECONDS)).isEqualTo("ADDED first a");
            assertThat(events.poll(10, TimeUnit.SECONDS)).isEqualTo("MODIFIED first b");
            assertThat(events.poll(10, TimeUnit.SECONDS)).isEqualTo("DELETED first b");

            watch.close();
            await().atMost(Duration.ofSeconds(10)).until(() -> watcherCount() == 0);
        }
    }

    @Test
    void aWatchGetsItsBookmarksAndEndsAtItsTimeoutWithNoEventsToWakeIt() {
        try (KubernetesClient admin = admin()) {
            long start = System.nanoTime();
            // An in-process watch is served by a thread that waits for each item; its times come from a shared timer.
            String lines = admin.raw("https://127.0.0.1/api/v1/namespaces/quiet/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=2");
            Duration took = Duration.ofNanos(System.nanoTime() - start);

            assertThat(took).isBetween(Duration.ofMillis(1900), Duration.ofSeconds(9));
            assertThat(lines.lines().filter(line -> line.contains("\"type\":\"BOOKMARK\"")).count()).isGreaterThanOrEqualTo(3);
            assertThat(lines.lines().filter(line -> !line.contains("\"type\":\"BOOKMARK\""))).isEmpty();
        }
    }

    @Test
    void aRefusedWatchFailsWithTheServersCode() {
        try (KubernetesClient bob = client(null, "bob-token")) {
            assertThatThrownBy(() -> bob.configMaps().inNamespace("default").watch(new Watcher<>() {
                @Override
                public void eventReceived(Action action, ConfigMap map) {}

                @Override
                public void onClose(WatcherException cause) {}
            })).isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
        }
    }

    @Test
    void informersSyncAndFollowChangesAndClosingTheClientEndsTheirWatches() throws Exception {
        KubernetesClient admin = admin();
        admin.configMaps().inNamespace("informed").resource(configMap("before", "x")).create();
        BlockingQueue<String> seen = new LinkedBlockingQueue<>();
        SharedIndexInformer<ConfigMap> informer = admin.configMaps().inNamespace("informed").inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(ConfigMap map) {
                seen.add("add " + map.getMetadata().getName());
            }

            @Override
            public void onUpdate(ConfigMap before, ConfigMap after) {
                seen.add("update " + after.getMetadata().getName());
            }

            @Override
            public void onDelete(ConfigMap map, boolean unknownFinalState) {
                seen.add("delete " + map.getMetadata().getName());
            }
        });
        assertThat(seen.poll(10, TimeUnit.SECONDS)).isEqualTo("add before");
        admin.configMaps().inNamespace("informed").resource(configMap("after", "y")).create();
        assertThat(seen.poll(10, TimeUnit.SECONDS)).isEqualTo("add after");
        assertThat(informer.getStore().list()).hasSize(2);
        await().atMost(Duration.ofSeconds(10)).until(() -> watcherCount() > 0);

        admin.close();
        await().atMost(Duration.ofSeconds(10)).until(() -> watcherCount() == 0);
    }

    private static int watcherCount() {
        return server.store(CONFIG_MAPS).orElseThrow().cache().watcherCount();
    }
}
