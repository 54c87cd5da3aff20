package io.k4j.apiserver.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import io.k4j.api.resource.GroupVersionResource;
import io.k4j.apiserver.ApiServer;
import io.k4j.apiserver.ApiServerConfig;
import io.k4j.apiserver.authentication.Authenticator;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authorization.AuthorizationResult;
import io.k4j.apiserver.authorization.Authorizer;
import io.k4j.apiserver.authorization.Decision;
import io.k4j.apiserver.registry.core.CoreResources;
import io.k4j.apiserver.registry.core.pod.PodLogHandler;
import io.k4j.apiserver.registry.core.pod.PodPortForwardHandler;
import io.k4j.apiserver.registry.core.pod.PodStreamHandler;
import io.k4j.apiserver.registry.generic.Registry;
import io.k4j.apiserver.registry.generic.ResourceDefinition;
import io.k4j.apiserver.registry.generic.SubresourceHandler;
import io.k4j.apiserver.spdy.SpdyConnection;
import io.k4j.apiserver.spdy.SpdyStream;
import io.k4j.apiserver.testing.TestCertificates;
import io.k4j.storage.sqlite.SqliteKeyValueStore;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * pods/log, exec and portforward through a real apiserver (real pod and node strategies, SQLite) to a kubelet endpoint
 * on loopback TLS: container selection and errors, the kubelet-client certificate, WebSocket v5 and v4 translated to
 * SPDY, SPDY relayed, and SPDY tunnelled in WebSocket for port-forward.
 */
class PodConnectionsApiServerTest {
    private static final GroupVersionResource NODES = new GroupVersionResource("", "v1", "nodes");

    @TempDir
    static Path directory;

    private static SqliteKeyValueStore storage;
    private static ApiServer server;
    private static FakeKubelet kubelet;
    private static HttpClient client;
    private static SSLContext clientTls;
    private static String base;
    private static Path kubeconfig;

    private static final Authenticator TOKENS = request -> "Bearer admin-token".equals(request.header("authorization"))
            ? Optional.of(UserInfo.of("admin", List.of(UserInfo.MASTERS_GROUP, UserInfo.AUTHENTICATED_GROUP)))
            : Optional.empty();

    private static final Authorizer MASTERS = attributes -> attributes.user().groups().contains(UserInfo.MASTERS_GROUP)
            ? AuthorizationResult.allow("")
            : new AuthorizationResult(Decision.NO_OPINION, "");

    @BeforeAll
    static void start() throws Exception {
        TestCertificates certificates = new TestCertificates();
        kubelet = new FakeKubelet(certificates.servingKeyStore(), TestCertificates.PASSWORD.toCharArray(), certificates.caCertificate());
        storage = SqliteKeyValueStore.open(directory.resolve("state.db"));
        InstantSource clock = InstantSource.system();
        ApiServer[] late = new ApiServer[1];
        Registry registry = resource -> late[0].registry().store(resource);
        KubeletClient kubelets = new KubeletClient(registry,
                () -> certificates.clientContext("kube-apiserver-kubelet-client", List.of("system:masters")), Duration.ofSeconds(20));
        List<ResourceDefinition> resources = new ArrayList<>();
        for (ResourceDefinition definition : new CoreResources(registry, clock).definitions()) {
            if (definition.strategy().type().plural().equals("pods")) {
                List<SubresourceHandler> handlers = new ArrayList<>(definition.subresourceHandlers());
                handlers.addAll(List.of(new PodLogHandler(kubelets), PodStreamHandler.exec(kubelets), PodStreamHandler.attach(kubelets),
                        new PodPortForwardHandler(kubelets)));
                definition = new ResourceDefinition(definition.strategy(), definition.subresourceStrategies(), handlers, definition.conversion());
            }
            resources.add(definition);
        }
        server = new ApiServer(ApiServerConfig.builder(storage, certificates.servingKeyStore(), TestCertificates.PASSWORD)
                .listen("127.0.0.1", 0)
                .clientCaCertificates(List.of(certificates.caCertificate()))
                .authenticators(List.of(TOKENS))
                .authorizers(List.of(MASTERS))
                .resources(resources)
                .build());
        late[0] = server;
        server.start();
        base = "127.0.0.1:" + server.port();
        clientTls = certificates.clientContext(null, List.of());
        client = HttpClient.newBuilder().sslContext(clientTls).build();

        post("/api/v1/nodes", "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-1\"}}");
        registry.require(NODES).guaranteedUpdate("", "node-1", "status", node -> {
            ObjectNode status = node.putObject("status");
            status.putArray("addresses").addObject().put("type", "InternalIP").put("address", "127.0.0.1");
            status.putObject("daemonEndpoints").putObject("kubeletEndpoint").put("Port", kubelet.port());
            return node;
        });
        createPod("web", "node-1", "c1", "c2");
        createPod("single", "node-1", "only");
        createPod("pending", "", "c1");
        registry.require(new GroupVersionResource("", "v1", "pods")).guaranteedUpdate("default", "single", "status", pod -> {
            ((ObjectNode) pod.path("status")).put("phase", "Running");
            return pod;
        });
        kubeconfig = directory.resolve("kubeconfig");
        String caPem = "-----BEGIN CERTIFICATE-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(certificates.caCertificate().getEncoded()) + "\n-----END CERTIFICATE-----\n";
        java.nio.file.Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters:
                - name: test
                  cluster:
                    server: https://%s
                    certificate-authority-data: %s
                users:
                - name: admin
                  user:
                    token: admin-token
                contexts:
                - name: test
                  context:
                    cluster: test
                    user: admin
                    namespace: default
                current-context: test
                """.formatted(base, Base64.getEncoder().encodeToString(caPem.getBytes(StandardCharsets.US_ASCII))));
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
        storage.close();
        kubelet.close();
    }

    @Test
    void streamsContainerLogsFromTheKubelet() throws Exception {
        HttpResponse<String> response = get("/api/v1/namespaces/default/pods/web/log?container=c1&tailLines=5&timestamps=true&follow=false");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValue("text/plain");
        assertThat(response.body()).isEqualTo("line one\nline two\n");
        assertThat(kubelet.requests).contains("GET /containerLogs/default/web/c1?timestamps=true&tailLines=5 HTTP/1.1");
        assertThat(kubelet.clients).contains("kube-apiserver-kubelet-client");
    }

    @Test
    void defaultsTheOnlyContainer() throws Exception {
        get("/api/v1/namespaces/default/pods/single/log");
        assertThat(kubelet.requests).contains("GET /containerLogs/default/single/only HTTP/1.1");
    }

    @Test
    void asksForAContainerWhenThePodHasSeveral() throws Exception {
        assertStatus(get("/api/v1/namespaces/default/pods/web/log"), 400, "BadRequest",
                "a container name must be specified for pod web, choose one of: [c1 c2]");
        assertStatus(get("/api/v1/namespaces/default/pods/web/log?container=c9"), 400, "BadRequest", "container c9 is not valid for pod web");
    }

    @Test
    void reportsTheKubeletsReasons() throws Exception {
        assertStatus(get("/api/v1/namespaces/default/pods/web/log?container=c2"), 400, "BadRequest",
                "container \"c2\" in pod \"web\" is waiting to start: ContainerCreating");
        assertStatus(get("/api/v1/namespaces/default/pods/pending/log"), 400, "BadRequest", "pod pending does not have a host assigned");
        assertStatus(get("/api/v1/namespaces/default/pods/missing/log"), 404, "NotFound", "pods \"missing\" not found");
    }

    @Test
    void validatesLogOptions() throws Exception {
        HttpResponse<String> response = get("/api/v1/namespaces/default/pods/single/log?tailLines=-1&sinceSeconds=0");
        assertThat(response.statusCode()).isEqualTo(422);
        assertThat(Json.mapper().readTree(response.body()).path("message").asText())
                .isEqualTo("PodLogOptions \"single\" is invalid: [sinceSeconds: Invalid value: 0: must be greater than 0, "
                        + "tailLines: Invalid value: -1: must be greater than or equal to 0]");
    }

    @Test
    void execOverWebSocketV5ClosesStdinThroughSpdy() throws Exception {
        Collector collector = new Collector();
        WebSocket webSocket = openWebSocket("/api/v1/namespaces/default/pods/web/exec?container=c1&command=cat&stdin=true&stdout=true&stderr=true",
                collector, "v5.channel.k8s.io", "v4.channel.k8s.io");
        assertThat(webSocket.getSubprotocol()).isEqualTo("v5.channel.k8s.io");

        webSocket.sendBinary(ByteBuffer.wrap(new byte[] {0, 'h', 'i', '\n'}), true).get(20, TimeUnit.SECONDS);
        webSocket.sendBinary(ByteBuffer.wrap(new byte[] {(byte) 255, 0}), true).get(20, TimeUnit.SECONDS);

        assertThat((byte[]) collector.next()).containsExactly(1, 'H', 'I', '\n');
        assertThat(new String((byte[]) collector.next(), StandardCharsets.UTF_8)).isEqualTo("\u0003{\"metadata\":{},\"status\":\"Success\"}");
        assertThat(collector.closed.get(20, TimeUnit.SECONDS)).isEqualTo(WebSocket.NORMAL_CLOSURE);
        assertThat(kubelet.requests).contains("POST /exec/default/web/c1?command=cat&input=1&output=1&error=1 HTTP/1.1");
    }

    @Test
    void execOverWebSocketV4ReportsTheExitStatus() throws Exception {
        Collector collector = new Collector();
        WebSocket webSocket = openWebSocket("/api/v1/namespaces/default/pods/single/exec?command=false&stdin=true&stdout=true",
                collector, "v4.channel.k8s.io");
        assertThat(webSocket.getSubprotocol()).isEqualTo("v4.channel.k8s.io");

        byte[] message = (byte[]) collector.next();
        assertThat(message[0]).isEqualTo((byte) 3);
        JsonNode status = Json.mapper().readTree(java.util.Arrays.copyOfRange(message, 1, message.length));
        assertThat(status.path("reason").asText()).isEqualTo("NonZeroExitCode");
        assertThat(collector.closed.get(20, TimeUnit.SECONDS)).isEqualTo(WebSocket.NORMAL_CLOSURE);
    }

    @Test
    void execNeedsACommandAndAContainer() throws Exception {
        assertStatus(post("/api/v1/namespaces/default/pods/single/exec?stdout=true", ""), 400, "BadRequest", "you must specify at least 1 command");
        assertStatus(post("/api/v1/namespaces/default/pods/web/exec?command=ls&stdout=true", ""), 400, "BadRequest",
                "a container name must be specified for pod web, choose one of: [c1 c2]");
    }

    @Test
    void relaysASpdyExecToTheKubelet() throws Exception {
        try (SSLSocket socket = (SSLSocket) clientTls.getSocketFactory().createSocket("127.0.0.1", server.port())) {
            socket.setSoTimeout(20_000);
            OutputStream output = socket.getOutputStream();
            output.write(("POST /api/v1/namespaces/default/pods/single/exec?command=cat&stdin=true&stdout=true HTTP/1.1\r\nHost: " + base + "\r\n"
                    + "Authorization: Bearer admin-token\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\n"
                    + "Content-Length: 0\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            output.flush();
            InputStream input = new BufferedInputStream(socket.getInputStream());
            String head = FakeKubelet.readHead(input);
            assertThat(head).startsWith("HTTP/1.1 101").containsIgnoringCase("X-Stream-Protocol-Version: v4.channel.k8s.io");

            SpdyConnection session = new SpdyConnection(input, output, socket, SpdyConnection.Role.CLIENT, stream -> { }).start("test-spdy");
            SpdyStream error = session.openStream(Map.of("streamType", List.of("error")));
            SpdyStream stdin = session.openStream(Map.of("streamType", List.of("stdin")));
            SpdyStream stdout = session.openStream(Map.of("streamType", List.of("stdout")));
            for (SpdyStream stream : List.of(error, stdin, stdout)) {
                assertThat(stream.awaitReply(Duration.ofSeconds(20))).isTrue();
            }
            stdin.output().write("spdy\n".getBytes(StandardCharsets.UTF_8));
            stdin.output().close();

            assertThat(new String(stdout.input().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("SPDY\n");
            assertThat(new String(error.input().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("{\"metadata\":{},\"status\":\"Success\"}");
            session.close();
        }
    }

    @Test
    void portForwardTunnelsSpdyInWebSocketMessages() throws Exception {
        try (SSLSocket socket = (SSLSocket) clientTls.getSocketFactory().createSocket("127.0.0.1", server.port())) {
            socket.setSoTimeout(20_000);
            OutputStream output = socket.getOutputStream();
            String key = Base64.getEncoder().encodeToString(new byte[16]);
            output.write(("GET /api/v1/namespaces/default/pods/single/portforward HTTP/1.1\r\nHost: " + base + "\r\n"
                    + "Authorization: Bearer admin-token\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
                    + "Sec-WebSocket-Key: " + key + "\r\nSec-WebSocket-Protocol: SPDY/3.1+portforward.k8s.io\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            output.flush();
            DataInputStream input = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            String head = FakeKubelet.readHead(input);
            assertThat(head).startsWith("HTTP/1.1 101").containsIgnoringCase("Sec-WebSocket-Protocol: SPDY/3.1+portforward.k8s.io");

            byte[] spdyBytes = {(byte) 0x80, 3, 0, 6, 0, 0, 0, 4, 0, 0, 0, 1};
            writeMaskedBinary(output, spdyBytes);
            ByteArrayOutputStream echoed = new ByteArrayOutputStream();
            while (echoed.size() < spdyBytes.length) {
                int first = input.readUnsignedByte();
                assertThat(first & 0x0f).as("binary opcode").isEqualTo(2);
                int length = input.readUnsignedByte() & 0x7f;
                echoed.writeBytes(input.readNBytes(length));
            }
            assertThat(echoed.toByteArray()).containsExactly(spdyBytes);
        }
        assertThat(kubelet.requests).contains("POST /portForward/default/single HTTP/1.1");
    }

    @Test
    void portForwardNeedsAnUpgrade() throws Exception {
        assertStatus(post("/api/v1/namespaces/default/pods/single/portforward", ""), 400, "BadRequest", "Upgrade request required");
    }

    @Test
    void kubectlLogsAndItsErrors() throws Exception {
        Kubectl.Result logs = kubectl(null, "logs", "web", "-c", "c1");
        assertThat(logs.exitCode()).as(logs.stderr()).isZero();
        assertThat(logs.stdout()).isEqualTo("line one\nline two\n");

        Kubectl.Result waiting = kubectl(null, "logs", "web", "-c", "c2");
        assertThat(waiting.exitCode()).isNotZero();
        assertThat(waiting.stderr()).contains("Error from server (BadRequest): container \"c2\" in pod \"web\" is waiting to start: ContainerCreating");
    }

    @Test
    void kubectlExecOverWebSocketClosesStdin() throws Exception {
        Kubectl.Result greeting = kubectl(null, "exec", "single", "--", "greet");
        assertThat(greeting.exitCode()).as(greeting.stderr()).isZero();
        assertThat(greeting.stdout()).isEqualTo("hello from the fake kubelet\n");

        Kubectl.Result upper = kubectl("piped through\n", "exec", "-i", "single", "--", "cat");
        assertThat(upper.exitCode()).as(upper.stderr()).isZero();
        assertThat(upper.stdout()).isEqualTo("PIPED THROUGH\n");

        Kubectl.Result failing = kubectl(null, "exec", "single", "--", "false");
        assertThat(failing.exitCode()).isEqualTo(1);
        assertThat(failing.stderr()).contains("command terminated with exit code 1");
    }

    @Test
    void kubectlPortForwardTunnelsSpdyOverWebSocket() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isExecutable(Path.of(KUBECTL)), "kubectl is not installed");
        Process process = new ProcessBuilder(KUBECTL, "--kubeconfig", kubeconfig.toString(), "port-forward", "pod/single", "0:80")
                .redirectErrorStream(true).start();
        try {
            java.io.BufferedReader output = new java.io.BufferedReader(new java.io.InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            String line = output.readLine();
            assertThat(line).as("kubectl's first line").isNotNull().startsWith("Forwarding from 127.0.0.1:");
            int port = Integer.parseInt(line.substring("Forwarding from 127.0.0.1:".length(), line.indexOf(" ->")));
            for (String message : List.of("first connection", "second connection")) {
                try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
                    socket.setSoTimeout(20_000);
                    socket.getOutputStream().write(message.getBytes(StandardCharsets.UTF_8));
                    socket.getOutputStream().flush();
                    assertThat(new String(socket.getInputStream().readNBytes(message.length()), StandardCharsets.UTF_8)).isEqualTo(message);
                }
            }
        } finally {
            process.destroy();
            process.waitFor(20, TimeUnit.SECONDS);
        }
        assertThat(kubelet.requests).contains("POST /portForward/default/single HTTP/1.1");
    }

    private static final String KUBECTL = "/usr/bin/kubectl";

    /** The real kubectl's outcome. */
    private static final class Kubectl {
        record Result(int exitCode, String stdout, String stderr) {}
    }

    private static Kubectl.Result kubectl(String stdin, String... arguments) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isExecutable(Path.of(KUBECTL)), "kubectl is not installed");
        List<String> command = new ArrayList<>(List.of(KUBECTL, "--kubeconfig", kubeconfig.toString()));
        command.addAll(List.of(arguments));
        Path stdout = java.nio.file.Files.createTempFile(directory, "stdout", ".txt");
        Path stderr = java.nio.file.Files.createTempFile(directory, "stderr", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
        if (stdin == null) {
            builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        }
        Process process = builder.start();
        if (stdin != null) {
            try (OutputStream input = process.getOutputStream()) {
                input.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
        }
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("kubectl finished").isTrue();
        return new Kubectl.Result(process.exitValue(), java.nio.file.Files.readString(stdout), java.nio.file.Files.readString(stderr));
    }

    private static void writeMaskedBinary(OutputStream output, byte[] payload) throws IOException {
        byte[] mask = new byte[4];
        new SecureRandom().nextBytes(mask);
        ByteArrayOutputStream frame = new ByteArrayOutputStream();
        frame.write(0x82);
        frame.write(0x80 | payload.length);
        frame.writeBytes(mask);
        for (int i = 0; i < payload.length; i++) {
            frame.write(payload[i] ^ mask[i & 3]);
        }
        output.write(frame.toByteArray());
        output.flush();
    }

    private static void assertStatus(HttpResponse<String> response, int code, String reason, String message) throws IOException {
        assertThat(response.statusCode()).isEqualTo(code);
        JsonNode status = Json.mapper().readTree(response.body());
        assertThat(status.path("kind").asText()).isEqualTo("Status");
        assertThat(status.path("reason").asText()).isEqualTo(reason);
        assertThat(status.path("message").asText()).isEqualTo(message);
    }

    private static void createPod(String name, String nodeName, String... containers) throws Exception {
        StringBuilder containerList = new StringBuilder();
        for (String container : containers) {
            containerList.append(containerList.isEmpty() ? "" : ",").append("{\"name\":\"").append(container).append("\",\"image\":\"busybox\"}");
        }
        String spec = (nodeName.isEmpty() ? "" : "\"nodeName\":\"" + nodeName + "\",") + "\"containers\":[" + containerList + "]";
        HttpResponse<String> response = post("/api/v1/namespaces/default/pods",
                "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" + name + "\"},\"spec\":{" + spec + "}}");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
    }

    private static HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("https://" + base + path)).header("Authorization", "Bearer admin-token").build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(String path, String body) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("https://" + base + path))
                .header("Authorization", "Bearer admin-token")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static WebSocket openWebSocket(String path, WebSocket.Listener listener, String... subprotocols) throws Exception {
        return client.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(20)).header("Authorization", "Bearer admin-token")
                .subprotocols(subprotocols[0], java.util.Arrays.copyOfRange(subprotocols, 1, subprotocols.length))
                .buildAsync(URI.create("wss://" + base + path), listener).get(30, TimeUnit.SECONDS);
    }

    /** Collects whole binary messages and the close the server sent. */
    private static final class Collector implements WebSocket.Listener {
        final BlockingQueue<byte[]> messages = new LinkedBlockingQueue<>();
        final CompletableFuture<Integer> closed = new CompletableFuture<>();
        private final ByteArrayOutputStream binary = new ByteArrayOutputStream();

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
            byte[] message = messages.poll(20, TimeUnit.SECONDS);
            assertThat(message).as("a message within 20 s").isNotNull();
            return message;
        }
    }
}
