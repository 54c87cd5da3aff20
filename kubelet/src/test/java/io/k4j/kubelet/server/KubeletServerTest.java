package io.k4j.kubelet.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The kubelet server over real TLS with real log files, a hand-written auth and locator, and a loopback streaming server. */
class KubeletServerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String NODE = "test-node";

    @TempDir
    Path logsRoot;

    private static TestTls tls;
    private static SSLContext serverContext;
    private static final Map<String, SSLContext> CLIENTS = new java.util.concurrent.ConcurrentHashMap<>();
    private FakeAuth auth;
    private FakeLocator locator;
    private LoopbackStreamingServer streamingServer;
    private RecordingRuntime runtime;
    private KubeletServer server;

    @BeforeAll
    static void makeCertificates() throws Exception {
        tls = new TestTls();
        serverContext = tls.serverContext();
    }

    @BeforeEach
    void start() throws Exception {
        auth = new FakeAuth();
        locator = new FakeLocator();
        streamingServer = new LoopbackStreamingServer();
        runtime = new RecordingRuntime(streamingServer.port());
        server = KubeletServer.start(new KubeletServerConfig(NODE, InetAddress.getLoopbackAddress(), 0, serverContext, Duration.ofMillis(50)),
                locator, runtime, auth, InstantSource.system());
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
        streamingServer.close();
    }

    @Test
    void answersHealthzToAnAuthorizedCertificate() throws Exception {
        auth.allow("kube-apiserver-kubelet-client");
        Response response = request(client("kube-apiserver-kubelet-client", List.of("system:masters")), "GET /healthz", Map.of());
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.text()).isEqualTo("ok");
        assertThat(auth.decisions).containsExactly("kube-apiserver-kubelet-client [system:masters, system:authenticated] get nodes/proxy " + NODE);
    }

    @Test
    void refusesAnonymousCallers() throws Exception {
        Response response = request(client(null, List.of()), "GET /pods", Map.of());
        assertThat(response.status()).isEqualTo(401);
        assertThat(response.text()).isEqualTo("Unauthorized\n");
    }

    @Test
    void forbidsWhatTheApiServerDenies() throws Exception {
        Response response = request(client("someone", List.of()), "POST /exec/default/web/c1?command=ls&output=1", Map.of());
        assertThat(response.status()).isEqualTo(403);
        assertThat(response.text()).isEqualTo("Forbidden (user=someone, verb=create, resource=nodes, subresource=proxy)\n");
    }

    @Test
    void acceptsBearerTokensAndListsPods() throws Exception {
        auth.allow("token-user");
        locator.add(runningPod("web", "c1", "abc"));
        Response response = request(client(null, List.of()), "GET /pods", Map.of("Authorization", "Bearer good-token"));
        assertThat(response.status()).isEqualTo(200);
        JsonNode list = JSON.readTree(response.body());
        assertThat(list.path("kind").asText()).isEqualTo("PodList");
        assertThat(list.path("items").get(0).path("metadata").path("name").asText()).isEqualTo("web");
    }

    @Test
    void servesContainerLogsWithOptions() throws Exception {
        auth.allow("admin");
        locator.add(runningPod("web", "c1", "abc"));
        Path file = PodLogPaths.containerLog(logsRoot, "default", "web", "uid-web", "c1", 0);
        Files.createDirectories(file.getParent());
        Files.writeString(file, "2026-11-22T10:00:00Z stdout F one\n2026-11-22T10:00:01Z stderr F two\n2026-11-22T10:00:02Z stdout F three\n");
        locator.logPaths.put("abc", file);
        SSLContext admin = client("admin", List.of());

        assertThat(request(admin, "GET /containerLogs/default/web/c1", Map.of()).text()).isEqualTo("one\ntwo\nthree\n");
        assertThat(request(admin, "GET /containerLogs/default/web/c1?tailLines=1&timestamps=true", Map.of()).text())
                .isEqualTo("2026-11-22T10:00:02Z three\n");
        assertThat(request(admin, "GET /containerLogs/default/web/c1?sinceTime=2026-11-22T10:00:01Z&limitBytes=5", Map.of()).text())
                .isEqualTo("two\nt");
    }

    @Test
    void explainsWhyThereIsNoLogYet() throws Exception {
        auth.allow("admin");
        ContainerStatus waiting = new ContainerStatusBuilder().withName("c1").withNewState().withNewWaiting().withReason("ContainerCreating").endWaiting()
                .endState().build();
        locator.add(pod("web", waiting));
        SSLContext admin = client("admin", List.of());

        Response response = request(admin, "GET /containerLogs/default/web/c1", Map.of());
        assertThat(response.status()).isEqualTo(400);
        assertThat(response.text()).isEqualTo("container \"c1\" in pod \"web\" is waiting to start: ContainerCreating\n");
        assertThat(request(admin, "GET /containerLogs/default/web/c1?previous=true", Map.of()).text())
                .isEqualTo("previous terminated container \"c1\" in pod \"web\" not found\n");
        assertThat(request(admin, "GET /containerLogs/default/web/c9", Map.of()).text())
                .isEqualTo("container \"c9\" in pod \"web\" is not available\n");
        assertThat(request(admin, "GET /containerLogs/default/nothing/c1", Map.of()).status()).isEqualTo(404);
    }

    @Test
    void readsThePreviousContainersLog() throws Exception {
        auth.allow("admin");
        ContainerStatus restarted = new ContainerStatusBuilder().withName("c1").withContainerID("containerd://second").withRestartCount(1)
                .withNewState().withNewRunning().endRunning().endState()
                .withNewLastState().withNewTerminated().withContainerID("containerd://first").withExitCode(1).endTerminated().endLastState()
                .build();
        locator.add(pod("web", restarted));
        Path first = PodLogPaths.containerLog(logsRoot, "default", "web", "uid-web", "c1", 0);
        Files.createDirectories(first.getParent());
        Files.writeString(first, "2026-11-22T10:00:00Z stdout F before the crash\n");
        locator.logPaths.put("first", first);

        assertThat(request(client("admin", List.of()), "GET /containerLogs/default/web/c1?previous=true", Map.of()).text())
                .isEqualTo("before the crash\n");
    }

    @Test
    void relaysExecToTheRuntimesStreamingServer() throws Exception {
        auth.allow("kube-apiserver-kubelet-client");
        locator.add(runningPod("web", "c1", "abc"));
        try (SSLSocket socket = connect(client("kube-apiserver-kubelet-client", List.of("system:masters")))) {
            OutputStream output = socket.getOutputStream();
            output.write(("POST /exec/default/web/c1?command=sh&command=-c&command=echo+hi&input=1&output=1&tty=1 HTTP/1.1\r\n"
                    + "Host: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\n"
                    + "Content-Length: 0\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            output.flush();
            InputStream input = new BufferedInputStream(socket.getInputStream());
            assertThat(readHead(input)).startsWith("HTTP/1.1 101 Switching Protocols");
            output.write("ping".getBytes(StandardCharsets.US_ASCII));
            output.flush();
            assertThat(new String(input.readNBytes(4), StandardCharsets.US_ASCII)).isEqualTo("ping");
        }
        assertThat(runtime.calls).containsExactly("exec abc [sh, -c, echo hi] tty=true stdin=true stdout=true stderr=false");
        assertThat(streamingServer.requests).hasSize(1);
        assertThat(streamingServer.requests.get(0)).startsWith("POST /exec/abc HTTP/1.1").containsIgnoringCase("x-stream-protocol-version: v4.channel.k8s.io")
                .containsIgnoringCase("upgrade: SPDY/3.1");
    }

    @Test
    void relaysPortForwardToTheSandbox() throws Exception {
        auth.allow("admin");
        locator.add(runningPod("web", "c1", "abc"));
        locator.sandboxes.put("web", "sandbox-1");
        try (SSLSocket socket = connect(client("admin", List.of()))) {
            OutputStream output = socket.getOutputStream();
            output.write(("POST /portForward/default/web HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n"
                    + "X-Stream-Protocol-Version: portforward.k8s.io\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            output.flush();
            InputStream input = new BufferedInputStream(socket.getInputStream());
            assertThat(readHead(input)).startsWith("HTTP/1.1 101");
        }
        assertThat(runtime.calls).containsExactly("portForward sandbox-1 []");
    }

    @Test
    void refusesExecIntoAContainerThatDoesNotRun() throws Exception {
        auth.allow("admin");
        ContainerStatus waiting = new ContainerStatusBuilder().withName("c1").withNewState().withNewWaiting().withReason("ContainerCreating").endWaiting()
                .endState().build();
        locator.add(pod("web", waiting));
        Response response = request(client("admin", List.of()), "POST /exec/default/web/c1?command=ls&output=1",
                Map.of("Connection", "Upgrade", "Upgrade", "SPDY/3.1"));
        assertThat(response.status()).isEqualTo(404);
        assertThat(response.text()).isEqualTo("container not found (\"c1\")\n");
        assertThat(runtime.calls).isEmpty();
    }

    @Test
    void mapsRequestsToNodeSubresourcesAsUpstream() {
        assertThat(KubeletServer.subresource("/containerLogs/a/b/c")).isEqualTo("proxy");
        assertThat(KubeletServer.subresource("/logs/syslog")).isEqualTo("log");
        assertThat(KubeletServer.subresource("/stats/summary")).isEqualTo("stats");
        assertThat(KubeletServer.subresource("/metrics")).isEqualTo("metrics");
        assertThat(KubeletServer.subresource("/logsomething")).isEqualTo("proxy");
        assertThat(KubeletServer.verb("POST")).isEqualTo("create");
        assertThat(KubeletServer.verb("GET")).isEqualTo("get");
    }

    private static Pod runningPod(String name, String container, String containerId) {
        return pod(name, new ContainerStatusBuilder().withName(container).withContainerID("containerd://" + containerId)
                .withNewState().withNewRunning().endRunning().endState().build());
    }

    private static Pod pod(String name, ContainerStatus status) {
        return new PodBuilder().withNewMetadata().withNamespace("default").withName(name).withUid("uid-" + name).endMetadata()
                .withNewSpec().withNodeName(NODE).addNewContainer().withName(status.getName()).withImage("busybox").endContainer().endSpec()
                .withNewStatus().withPhase("Running").withContainerStatuses(status).endStatus()
                .build();
    }

    private SSLContext client(String user, List<String> groups) throws Exception {
        String key = user + " " + groups;
        SSLContext context = CLIENTS.get(key);
        if (context == null) {
            context = tls.clientContext(user, groups);
            CLIENTS.put(key, context);
        }
        return context;
    }

    private SSLSocket connect(SSLContext context) throws IOException {
        SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", server.port());
        socket.setSoTimeout(10_000);
        return socket;
    }

    private record Response(int status, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private Response request(SSLContext context, String requestLine, Map<String, String> headers) throws IOException {
        try (SSLSocket socket = connect(context)) {
            StringBuilder request = new StringBuilder(requestLine).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n");
            headers.forEach((name, value) -> request.append(name).append(": ").append(value).append("\r\n"));
            request.append("\r\n");
            socket.getOutputStream().write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            InputStream input = new BufferedInputStream(socket.getInputStream());
            String head = readHead(input);
            int status = Integer.parseInt(head.split(" ")[1]);
            byte[] rest = input.readAllBytes();
            return new Response(status, head.toLowerCase(Locale.ROOT).contains("transfer-encoding: chunked") ? dechunk(rest) : rest);
        }
    }

    private static String readHead(InputStream input) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int next = input.read();
            if (next < 0) {
                break;
            }
            head.write(next);
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    private static byte[] dechunk(byte[] chunked) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        int position = 0;
        while (position < chunked.length) {
            int lineEnd = indexOf(chunked, position);
            int size = Integer.parseInt(new String(chunked, position, lineEnd - position, StandardCharsets.US_ASCII).trim(), 16);
            if (size == 0) {
                break;
            }
            body.write(chunked, lineEnd + 2, size);
            position = lineEnd + 2 + size + 2;
        }
        return body.toByteArray();
    }

    private static int indexOf(byte[] bytes, int from) {
        for (int i = from; i + 1 < bytes.length; i++) {
            if (bytes[i] == '\r' && bytes[i + 1] == '\n') {
                return i;
            }
        }
        return bytes.length;
    }

    /** Authenticates certificates by their CN and one token; allows only the users it was told to. */
    private static final class FakeAuth implements KubeletAuth {
        private final Set<String> allowed = Collections.synchronizedSet(new java.util.HashSet<>());
        final List<String> decisions = new CopyOnWriteArrayList<>();

        void allow(String user) {
            allowed.add(user);
        }

        @Override
        public Optional<KubeletUser> authenticate(List<X509Certificate> verifiedChain, Optional<String> bearerToken) {
            if (!verifiedChain.isEmpty()) {
                return Optional.of(ApiServerKubeletAuth.fromCertificate(verifiedChain.get(0)));
            }
            if (bearerToken.equals(Optional.of("good-token"))) {
                return Optional.of(new KubeletUser("token-user", "", List.of("system:authenticated"), Map.of()));
            }
            return Optional.empty();
        }

        @Override
        public boolean authorize(KubeletUser user, String verb, String nodeName, String subresource) {
            decisions.add(user.name() + " " + user.groups() + " " + verb + " nodes/" + subresource + " " + nodeName);
            return allowed.contains(user.name());
        }
    }

    private static final class FakeLocator implements PodContainerLocator {
        private final Map<String, Pod> pods = new LinkedHashMap<>();
        final Map<String, Path> logPaths = new HashMap<>();
        final Map<String, String> sandboxes = new HashMap<>();

        synchronized void add(Pod pod) {
            pods.put(pod.getMetadata().getName(), pod);
        }

        @Override
        public synchronized List<Pod> pods() {
            return List.copyOf(pods.values());
        }

        @Override
        public synchronized Optional<Pod> pod(String namespace, String name) {
            return Optional.ofNullable(pods.get(name)).filter(pod -> pod.getMetadata().getNamespace().equals(namespace));
        }

        @Override
        public synchronized Optional<Path> logPath(String containerId) {
            return Optional.ofNullable(logPaths.get(containerId));
        }

        @Override
        public synchronized Optional<String> sandboxId(Pod pod) {
            return Optional.ofNullable(sandboxes.get(pod.getMetadata().getName()));
        }
    }

    /** Records the CRI streaming calls and names the loopback streaming server's URL for each. */
    private static final class RecordingRuntime implements StreamingRuntime {
        private final int port;
        final List<String> calls = new CopyOnWriteArrayList<>();

        RecordingRuntime(int port) {
            this.port = port;
        }

        @Override
        public URI exec(String containerId, List<String> command, boolean tty, boolean stdin, boolean stdout, boolean stderr) {
            calls.add("exec " + containerId + " " + command + " tty=" + tty + " stdin=" + stdin + " stdout=" + stdout + " stderr=" + stderr);
            return URI.create("http://127.0.0.1:" + port + "/exec/" + containerId);
        }

        @Override
        public URI attach(String containerId, boolean tty, boolean stdin, boolean stdout, boolean stderr) {
            calls.add("attach " + containerId);
            return URI.create("http://127.0.0.1:" + port + "/attach/" + containerId);
        }

        @Override
        public URI portForward(String podSandboxId, List<Integer> ports) {
            calls.add("portForward " + podSandboxId + " " + ports);
            return URI.create("http://127.0.0.1:" + port + "/portforward/" + podSandboxId);
        }
    }

    /** A streaming server on loopback that accepts any upgrade with 101 and then echoes what it receives. */
    private static final class LoopbackStreamingServer implements AutoCloseable {
        private final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final List<String> requests = new CopyOnWriteArrayList<>();
        private final List<Socket> accepted = new ArrayList<>();

        LoopbackStreamingServer() throws IOException {
            Thread.ofVirtual().start(() -> {
                while (!socket.isClosed()) {
                    try {
                        Socket connection = socket.accept();
                        synchronized (accepted) {
                            accepted.add(connection);
                        }
                        Thread.ofVirtual().start(() -> serve(connection));
                    } catch (IOException e) {
                        return;
                    }
                }
            });
        }

        int port() {
            return socket.getLocalPort();
        }

        private void serve(Socket connection) {
            try (connection) {
                InputStream input = new BufferedInputStream(connection.getInputStream());
                requests.add(readHead(input));
                OutputStream output = connection.getOutputStream();
                output.write("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                output.flush();
                input.transferTo(output);
            } catch (IOException e) {
                // The test's client went away.
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
            synchronized (accepted) {
                for (Socket connection : accepted) {
                    connection.close();
                }
            }
        }
    }
}
