package io.k4j.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import io.k4j.api.codec.Json;
import io.k4j.apiserver.authentication.Authenticator;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.endpoints.HttpExchange;
import io.k4j.apiserver.registry.generic.GenericStrategy;
import io.k4j.apiserver.registry.generic.ResourceDefinition;
import io.k4j.apiserver.registry.generic.SubresourceHandler;
import io.k4j.apiserver.testing.TestAuthorizers;
import io.k4j.apiserver.testing.TestCertificates;
import io.k4j.apiserver.testing.TestResources;
import io.k4j.apiserver.websocket.ChannelConnection;
import io.k4j.apiserver.websocket.ChannelProtocol;
import io.k4j.storage.sqlite.SqliteKeyValueStore;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** WebSocket watches and channel streams through a real apiserver, driven by the JDK's WebSocket client and fabric8. */
class WebSocketApiServerTest {
    @TempDir
    static Path directory;

    private static SqliteKeyValueStore storage;
    private static ApiServer server;
    private static HttpClient admin;
    private static HttpClient anonymous;
    private static String base;

    private static final Authenticator TOKENS = request -> {
        String header = request.header("authorization");
        if (header == null || !header.startsWith("Bearer ")) {
            return Optional.empty();
        }
        return switch (header) {
            case "Bearer admin-token" -> Optional.of(UserInfo.of("admin", List.of(UserInfo.MASTERS_GROUP, UserInfo.AUTHENTICATED_GROUP)));
            case "Bearer bob-token" -> Optional.of(UserInfo.of("bob", List.of(UserInfo.AUTHENTICATED_GROUP)));
            default -> throw io.k4j.api.errors.StatusException.unauthorized();
        };
    };

    /**
     * An exec-like streaming subresource: echoes each stdin line in upper case on stdout until stdin ends (v5 close
     * signal) or a line says "exit", then reports success on the error channel as the kubelet does.
     */
    private static final class UpperCaseExec implements SubresourceHandler {
        @Override
        public String subresource() {
            return "exec";
        }

        @Override
        public String apiVersion() {
            return "v1";
        }

        @Override
        public String kind() {
            return "PodExecOptions";
        }

        @Override
        public boolean streaming() {
            return true;
        }

        @Override
        public void connect(Request request, HttpExchange exchange) throws IOException {
            try (ChannelConnection connection = ChannelConnection.accept(exchange, List.of(ChannelProtocol.values()), 5,
                    Set.of(ChannelConnection.STDIN, ChannelConnection.RESIZE))) {
                BufferedReader stdin = new BufferedReader(new InputStreamReader(connection.input(ChannelConnection.STDIN), StandardCharsets.UTF_8));
                OutputStream stdout = connection.output(ChannelConnection.STDOUT);
                String line;
                while ((line = stdin.readLine()) != null && !line.equals("exit")) {
                    stdout.write((line.toUpperCase(Locale.ROOT) + "\n").getBytes(StandardCharsets.UTF_8));
                }
                connection.output(ChannelConnection.ERROR).write("{\"metadata\":{},\"status\":\"Success\"}".getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    @BeforeAll
    static void start() throws Exception {
        TestCertificates certificates = new TestCertificates();
        storage = SqliteKeyValueStore.open(directory.resolve("state.db"));
        InstantSource clock = InstantSource.system();
        ResourceDefinition pods = new GenericStrategy(TestResources.PODS, clock).definition();
        ApiServerConfig config = ApiServerConfig.builder(storage, certificates.servingKeyStore(), TestCertificates.PASSWORD)
                .listen("127.0.0.1", 0)
                .clientCaCertificates(List.of(certificates.caCertificate()))
                .authenticators(List.of(TOKENS))
                .authorizers(List.of(TestAuthorizers.MASTERS_OR_READ_CONFIG_MAPS))
                .resources(List.of(
                        new ResourceDefinition(pods.strategy(), pods.subresourceStrategies(), List.of(new UpperCaseExec()), pods.conversion()),
                        new GenericStrategy(TestResources.CONFIG_MAPS, clock).definition()))
                .build();
        server = new ApiServer(config);
        server.start();
        base = "127.0.0.1:" + server.port();
        admin = HttpClient.newBuilder().sslContext(certificates.clientContext(null, List.of())).build();
        anonymous = admin;
        HttpResponse<String> pod = admin.send(HttpRequest.newBuilder(URI.create("https://" + base + "/api/v1/namespaces/default/pods"))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer admin-token")
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"shell\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(pod.statusCode()).isEqualTo(201);
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
        storage.close();
    }

    /** Collects whole messages (text as strings, binary as byte arrays) and the close the server sent. */
    private static final class Collector implements WebSocket.Listener {
        final BlockingQueue<Object> messages = new LinkedBlockingQueue<>();
        final CompletableFuture<Integer> closed = new CompletableFuture<>();
        private final StringBuilder text = new StringBuilder();
        private final ByteArrayOutputStream binary = new ByteArrayOutputStream();

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                messages.add(text.toString());
                text.setLength(0);
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
            byte[] bytes = new byte[data.remaining()];
            data.get(bytes);
            binary.writeBytes(bytes);
            if (last) {
                messages.add(binary.toByteArray());
                binary.reset();
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            closed.complete(statusCode);
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            closed.completeExceptionally(error);
        }

        Object next() throws InterruptedException {
            Object message = messages.poll(20, TimeUnit.SECONDS);
            assertThat(message).as("a message within 20 s").isNotNull();
            return message;
        }
    }

    private static void createConfigMap(String namespace, String name) throws Exception {
        HttpResponse<String> response = admin.send(HttpRequest.newBuilder(URI.create("https://" + base + "/api/v1/namespaces/" + namespace + "/configmaps"))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer admin-token")
                .POST(HttpRequest.BodyPublishers.ofString("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name + "\"},\"data\":{\"k\":\"v\"}}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(201);
    }

    private static WebSocket open(HttpClient client, String path, WebSocket.Listener listener, String... subprotocols) throws Exception {
        WebSocket.Builder builder = client.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(20)).header("Authorization", "Bearer admin-token");
        if (subprotocols.length > 0) {
            builder.subprotocols(subprotocols[0], java.util.Arrays.copyOfRange(subprotocols, 1, subprotocols.length));
        }
        return builder.buildAsync(URI.create("wss://" + base + path), listener).get(30, TimeUnit.SECONDS);
    }

    @Test
    void aWatchSendsEachEventAsOneTextMessage() throws Exception {
        Collector collector = new Collector();
        WebSocket webSocket = open(admin, "/api/v1/namespaces/ws-watch/configmaps?watch=true", collector);

        createConfigMap("ws-watch", "first");
        createConfigMap("ws-watch", "second");

        for (String name : List.of("first", "second")) {
            String message = (String) collector.next();
            assertThat(message).endsWith("\n").containsOnlyOnce("\n");
            JsonNode event = Json.mapper().readTree(message);
            assertThat(event.path("type").asText()).isEqualTo("ADDED");
            assertThat(event.path("object").path("metadata").path("name").asText()).isEqualTo(name);
        }
        assertThat(webSocket.getSubprotocol()).isEmpty();

        webSocket.sendClose(WebSocket.NORMAL_CLOSURE, "done").get(20, TimeUnit.SECONDS);
        assertThat(collector.closed.get(20, TimeUnit.SECONDS)).isEqualTo(WebSocket.NORMAL_CLOSURE);
    }

    @Test
    void aLegacyWatchPathWithOneSubprotocolEchoesIt() throws Exception {
        Collector collector = new Collector();
        WebSocket webSocket = open(admin, "/api/v1/watch/namespaces/ws-legacy/configmaps", collector, "base64.binary.k8s.io");

        createConfigMap("ws-legacy", "only");

        assertThat(webSocket.getSubprotocol()).isEqualTo("base64.binary.k8s.io");
        assertThat(Json.mapper().readTree((String) collector.next()).path("object").path("metadata").path("name").asText()).isEqualTo("only");
        webSocket.abort();
    }

    @Test
    void aWatchIsAuthorizedBeforeTheUpgrade() {
        assertThatThrownBy(() -> anonymous.newWebSocketBuilder()
                        .header("Authorization", "Bearer bob-token")
                        .buildAsync(URI.create("wss://" + base + "/api/v1/namespaces/default/configmaps?watch=true"), new Collector())
                        .get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOfSatisfying(WebSocketHandshakeException.class, e -> assertThat(e.getResponse().statusCode()).isEqualTo(403));
    }

    @Test
    void aChannelStreamSpeaksV5WithTheJdkClient() throws Exception {
        Collector collector = new Collector();
        WebSocket webSocket = open(admin, "/api/v1/namespaces/default/pods/shell/exec?command=sh&stdin=true&stdout=true", collector,
                "v5.channel.k8s.io", "v4.channel.k8s.io");

        webSocket.sendBinary(ByteBuffer.wrap(new byte[] {0, 'h', 'i', '\n'}), true).get(20, TimeUnit.SECONDS);
        webSocket.sendBinary(ByteBuffer.wrap(new byte[] {(byte) 255, 0}), true).get(20, TimeUnit.SECONDS);

        assertThat(webSocket.getSubprotocol()).isEqualTo("v5.channel.k8s.io");
        assertThat((byte[]) collector.next()).containsExactly(1, 'H', 'I', '\n');
        assertThat(new String((byte[]) collector.next(), StandardCharsets.UTF_8)).isEqualTo("\u0003{\"metadata\":{},\"status\":\"Success\"}");
        assertThat(collector.closed.get(20, TimeUnit.SECONDS)).isEqualTo(WebSocket.NORMAL_CLOSURE);
    }

    @Test
    void aChannelStreamSpeaksBase64ToClientsThatAskForIt() throws Exception {
        Collector collector = new Collector();
        WebSocket webSocket = open(admin, "/api/v1/namespaces/default/pods/shell/exec?command=sh&stdin=true&stdout=true", collector,
                "v4.base64.channel.k8s.io");

        webSocket.sendText("0" + java.util.Base64.getEncoder().encodeToString("abc\nexit\n".getBytes(StandardCharsets.UTF_8)), true).get(20, TimeUnit.SECONDS);

        assertThat((String) collector.next()).isEqualTo("1" + java.util.Base64.getEncoder().encodeToString("ABC\n".getBytes(StandardCharsets.UTF_8)));
        assertThat(((String) collector.next())).startsWith("3");
        assertThat(collector.closed.get(20, TimeUnit.SECONDS)).isEqualTo(WebSocket.NORMAL_CLOSURE);
    }

    @Test
    void fabric8ExecsOverTheChannelStream() throws Exception {
        Config config = new ConfigBuilder(Config.empty())
                .withMasterUrl("https://" + base)
                .withOauthToken("admin-token")
                .withTrustCerts(true)
                .withDisableHostnameVerification(true)
                .build();
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
            ByteArrayOutputStream stdout = new ByteArrayOutputStream();
            try (ExecWatch exec = client.pods().inNamespace("default").withName("shell")
                    .redirectingInput()
                    .writingOutput(stdout)
                    .exec("sh")) {
                exec.getInput().write("hello fabric8\n".getBytes(StandardCharsets.UTF_8));
                exec.getInput().flush();
                exec.getInput().write("exit\n".getBytes(StandardCharsets.UTF_8));
                exec.getInput().flush();

                assertThat(exec.exitCode().get(30, TimeUnit.SECONDS)).isZero();
            }
            assertThat(stdout.toString(StandardCharsets.UTF_8)).isEqualTo("HELLO FABRIC8\n");
        }
    }
}
