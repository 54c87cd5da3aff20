package io.k4j.kubelet.server;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodListBuilder;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Stream;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's HTTPS server: {@code /containerLogs/<namespace>/<pod>/<container>}, {@code /exec/…},
 * {@code /attach/…}, {@code /portForward/<namespace>/<pod>}, {@code /pods} and {@code /healthz}. Every request is
 * authenticated and authorized through {@link KubeletAuth} with upstream's mapping of a request to
 * {@code nodes/<subresource>} (HTTP method to verb; {@code /logs} is {@code log}, {@code /stats} {@code stats},
 * {@code /metrics} {@code metrics}, everything else {@code proxy}).
 *
 * <p>The server is a small HTTP/1.1 server over the JDK's TLS sockets, one virtual thread and one request per
 * connection, rather than Jetty (which the apiserver uses): exec, attach and port-forward hand the client's connection
 * over to the runtime's streaming server byte for byte after the upgrade, which a plain socket makes direct (the
 * JDK's {@code com.sun.net.httpserver} cannot give up a connection at all), and the node agent stays free of a web
 * server stack for six endpoints.
 *
 * <p>Thread-safe; {@link #close()} stops accepting and closes open connections.
 */
public final class KubeletServer implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(KubeletServer.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration REQUEST_HEAD_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration RUNTIME_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** Request headers that are about our hop only and are not passed on to the runtime's streaming server. */
    private static final Set<String> HOP_HEADERS = Set.of("host", "authorization", "content-length", "transfer-encoding", "keep-alive",
            "proxy-authorization", "proxy-connection", "te", "trailer");

    private final KubeletServerConfig config;
    private final PodContainerLocator locator;
    private final StreamingRuntime runtime;
    private final KubeletAuth auth;
    private final ContainerLogReader logs;
    private final InstantSource clock;
    private final SSLServerSocket serverSocket;
    private final Set<Socket> connections = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private KubeletServer(KubeletServerConfig config, PodContainerLocator locator, StreamingRuntime runtime, KubeletAuth auth, InstantSource clock)
            throws IOException {
        this.config = config;
        this.locator = locator;
        this.runtime = runtime;
        this.auth = auth;
        this.clock = clock;
        this.logs = new ContainerLogReader(config.followRecheck());
        this.serverSocket = (SSLServerSocket) config.tls().getServerSocketFactory().createServerSocket();
        serverSocket.setWantClientAuth(true);
        serverSocket.setReuseAddress(true);
        serverSocket.bind(new InetSocketAddress(config.bindAddress(), config.port()), 128);
    }

    /** Binds the port and starts serving. */
    public static KubeletServer start(KubeletServerConfig config, PodContainerLocator locator, StreamingRuntime runtime, KubeletAuth auth,
            InstantSource clock) throws IOException {
        KubeletServer server = new KubeletServer(requireNonNull(config, "config is null"), requireNonNull(locator, "locator is null"),
                requireNonNull(runtime, "runtime is null"), requireNonNull(auth, "auth is null"), requireNonNull(clock, "clock is null"));
        Thread.ofPlatform().daemon().name("kubelet-server-accept").start(server::acceptConnections);
        LOG.info("kubelet server listening on {}", server.serverSocket.getLocalSocketAddress());
        return server;
    }

    /** The port listened on. */
    public int port() {
        return serverSocket.getLocalPort();
    }

    @Override
    public void close() throws IOException {
        closed = true;
        serverSocket.close();
        for (Socket connection : connections) {
            closeQuietly(connection);
        }
    }

    private void acceptConnections() {
        while (!closed) {
            Socket socket;
            try {
                socket = serverSocket.accept();
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("kubelet server stopped accepting connections: {}", e.toString());
                }
                return;
            }
            connections.add(socket);
            Thread.ofVirtual().name("kubelet-server-connection").start(() -> {
                try {
                    serve((SSLSocket) socket);
                } finally {
                    connections.remove(socket);
                    closeQuietly(socket);
                }
            });
        }
    }

    private void serve(SSLSocket socket) {
        KubeletExchange exchange = null;
        try {
            socket.setSoTimeout((int) REQUEST_HEAD_TIMEOUT.toMillis());
            socket.startHandshake();
            InputStream input = new BufferedInputStream(socket.getInputStream());
            OutputStream output = new BufferedOutputStream(socket.getOutputStream(), 16 * 1024);
            exchange = KubeletExchange.read(input, output, peerCertificates(socket));
            socket.setSoTimeout(0);
            handle(exchange);
        } catch (KubeletExchange.BadRequest e) {
            LOG.debug("bad request on the kubelet server: {}", e.getMessage());
        } catch (RequestFailure e) {
            respondQuietly(exchange, e.status, e.getMessage());
        } catch (IOException e) {
            LOG.debug("kubelet server connection ended: {}", e.toString());
        } catch (RuntimeException e) {
            LOG.warn("kubelet server failed to serve {}", exchange == null ? "a request" : exchange.method() + " " + exchange.path(), e);
            respondQuietly(exchange, 500, "Internal Error: " + e.getMessage());
        }
    }

    private static List<X509Certificate> peerCertificates(SSLSocket socket) {
        try {
            Certificate[] chain = socket.getSession().getPeerCertificates();
            return Arrays.stream(chain).filter(X509Certificate.class::isInstance).map(X509Certificate.class::cast).toList();
        } catch (SSLPeerUnverifiedException noCertificate) {
            return List.of();
        }
    }

    private void handle(KubeletExchange exchange) throws IOException {
        String path = exchange.path();
        Optional<String> bearer = exchange.header("authorization")
                .filter(value -> value.regionMatches(true, 0, "Bearer ", 0, 7))
                .map(value -> value.substring(7).trim());
        Optional<KubeletUser> user = auth.authenticate(exchange.peerCertificates(), bearer);
        if (user.isEmpty()) {
            throw new RequestFailure(401, "Unauthorized");
        }
        String verb = verb(exchange.method());
        String subresource = subresource(path);
        if (!auth.authorize(user.get(), verb, config.nodeName(), subresource)) {
            throw new RequestFailure(403, "Forbidden (user=" + user.get().name() + ", verb=" + verb + ", resource=nodes, subresource=" + subresource + ")");
        }
        List<String> segments = segments(path);
        String root = segments.isEmpty() ? "" : segments.get(0);
        switch (root) {
            case "healthz" -> exchange.respond(200, "text/plain; charset=utf-8", "ok".getBytes(StandardCharsets.UTF_8));
            case "pods" -> pods(exchange);
            case "containerLogs" -> containerLogs(exchange, segments);
            case "exec", "attach" -> execOrAttach(exchange, root, segments);
            case "portForward" -> portForward(exchange, segments);
            default -> throw new RequestFailure(404, "404 page not found");
        }
    }

    /** Upstream's kubelet authorizer: the HTTP method decides the verb. */
    static String verb(String method) {
        return switch (method) {
            case "POST" -> "create";
            case "GET", "HEAD" -> "get";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> "delete";
            default -> method.toLowerCase(Locale.ROOT);
        };
    }

    /** Upstream's kubelet authorizer: the path decides the subresource of {@code nodes}. */
    static String subresource(String path) {
        for (Map.Entry<String, String> prefix : List.of(Map.entry("/stats", "stats"), Map.entry("/metrics", "metrics"), Map.entry("/logs", "log"),
                Map.entry("/checkpoint", "checkpoint"))) {
            if (path.equals(prefix.getKey()) || path.startsWith(prefix.getKey() + "/")) {
                return prefix.getValue();
            }
        }
        return "proxy";
    }

    private static List<String> segments(String path) {
        return Arrays.stream(path.split("/")).filter(segment -> !segment.isEmpty()).toList();
    }

    private void pods(KubeletExchange exchange) throws IOException {
        if (!exchange.method().equals("GET")) {
            throw new RequestFailure(405, "Method Not Allowed");
        }
        byte[] body = JSON.writeValueAsBytes(new PodListBuilder().withNewMetadata().endMetadata().withItems(locator.pods()).build());
        exchange.respond(200, "application/json", body);
    }

    private void containerLogs(KubeletExchange exchange, List<String> segments) throws IOException {
        if (segments.size() != 4) {
            throw new RequestFailure(400, "Bad Request: the path must be /containerLogs/<namespace>/<pod>/<container>");
        }
        String namespace = segments.get(1);
        String podName = segments.get(2);
        String containerName = segments.get(3);
        LogOptions options = logOptions(exchange);
        boolean previous = flag(exchange, "previous");
        Pod pod = locator.pod(namespace, podName)
                .orElseThrow(() -> new RequestFailure(404, "pod \"" + podName + "\" in namespace \"" + namespace + "\" not found"));
        String containerId = logContainerId(pod, containerName, previous);
        Path file = locator.logPath(containerId)
                .orElseThrow(() -> new RequestFailure(400, "failed to get container status for container \"" + containerName + "\": container " + containerId + " not found"));
        if (!Files.isRegularFile(file)) {
            // The runtime has not created the file yet (nothing written): an empty log, as upstream shows.
            exchange.startChunked(200, "text/plain").close();
            return;
        }
        OutputStream output = exchange.startChunked(200, "text/plain");
        try {
            logs.read(file, options, output, () -> isRunning(namespace, podName, containerName, containerId));
        } catch (NoSuchFileException e) {
            LOG.debug("log file {} went away while reading", file);
        }
        output.close();
    }

    private boolean isRunning(String namespace, String podName, String containerName, String containerId) {
        return locator.pod(namespace, podName)
                .flatMap(pod -> containerStatus(pod, containerName))
                .filter(status -> containerId.equals(stripScheme(status.getContainerID())))
                .map(status -> status.getState() != null && status.getState().getRunning() != null)
                .orElse(false);
    }

    /** Upstream's {@code validateContainerLogStatus}: which container's log a request means, or why there is none. */
    static String logContainerId(Pod pod, String containerName, boolean previous) {
        String podName = pod.getMetadata().getName();
        ContainerStatus status = containerStatus(pod, containerName)
                .orElseThrow(() -> new RequestFailure(400, "container \"" + containerName + "\" in pod \"" + podName + "\" is not available"));
        ContainerState state = status.getState();
        ContainerState lastState = status.getLastState();
        boolean lastTerminated = lastState != null && lastState.getTerminated() != null;
        if (previous) {
            if (!lastTerminated || isEmpty(lastState.getTerminated().getContainerID())) {
                throw new RequestFailure(400, "previous terminated container \"" + containerName + "\" in pod \"" + podName + "\" not found");
            }
            return stripScheme(lastState.getTerminated().getContainerID());
        }
        if (state != null && state.getRunning() != null) {
            return stripScheme(status.getContainerID());
        }
        if (state != null && state.getTerminated() != null) {
            if (!isEmpty(state.getTerminated().getContainerID())) {
                return stripScheme(state.getTerminated().getContainerID());
            }
            if (lastTerminated && !isEmpty(lastState.getTerminated().getContainerID())) {
                return stripScheme(lastState.getTerminated().getContainerID());
            }
            throw new RequestFailure(400, "container \"" + containerName + "\" in pod \"" + podName + "\" is terminated");
        }
        if (lastTerminated) {
            if (isEmpty(lastState.getTerminated().getContainerID())) {
                throw new RequestFailure(400, "container \"" + containerName + "\" in pod \"" + podName + "\" is terminated");
            }
            return stripScheme(lastState.getTerminated().getContainerID());
        }
        if (state != null && state.getWaiting() != null) {
            String reason = Optional.ofNullable(state.getWaiting().getReason()).orElse("");
            String detail = switch (reason) {
                case "ErrImagePull" -> "image can't be pulled";
                case "ImagePullBackOff" -> "trying and failing to pull image";
                default -> reason;
            };
            throw new RequestFailure(400, "container \"" + containerName + "\" in pod \"" + podName + "\" is waiting to start: " + detail);
        }
        throw new RequestFailure(400, "container \"" + containerName + "\" in pod \"" + podName + "\" is waiting to start - no logs yet");
    }

    private static Optional<ContainerStatus> containerStatus(Pod pod, String containerName) {
        if (pod.getStatus() == null) {
            return Optional.empty();
        }
        return Stream.of(pod.getStatus().getInitContainerStatuses(), pod.getStatus().getContainerStatuses(), pod.getStatus().getEphemeralContainerStatuses())
                .filter(java.util.Objects::nonNull)
                .flatMap(List::stream)
                .filter(status -> containerName.equals(status.getName()))
                .findFirst();
    }

    private static boolean isEmpty(String value) {
        return value == null || value.isEmpty();
    }

    /** {@code containerd://abc} ▶ {@code abc}. */
    static String stripScheme(String containerId) {
        if (containerId == null) {
            return "";
        }
        int separator = containerId.indexOf("://");
        return separator < 0 ? containerId : containerId.substring(separator + 3);
    }

    private LogOptions logOptions(KubeletExchange exchange) {
        OptionalLong tailLines = number(exchange, "tailLines");
        OptionalLong limitBytes = number(exchange, "limitBytes");
        OptionalLong sinceSeconds = number(exchange, "sinceSeconds");
        Optional<Instant> since = Optional.empty();
        if (sinceSeconds.isPresent()) {
            since = Optional.of(clock.instant().minusSeconds(sinceSeconds.getAsLong()));
        }
        Optional<String> sinceTime = exchange.queryParameter("sinceTime");
        if (sinceTime.isPresent()) {
            try {
                since = Optional.of(OffsetDateTime.parse(sinceTime.get()).toInstant());
            } catch (DateTimeParseException e) {
                throw new RequestFailure(400, "invalid sinceTime " + sinceTime.get());
            }
        }
        return new LogOptions(flag(exchange, "follow"), flag(exchange, "timestamps"),
                tailLines.isPresent() && tailLines.getAsLong() < 0 ? OptionalLong.empty() : tailLines, since, limitBytes);
    }

    private static OptionalLong number(KubeletExchange exchange, String name) {
        Optional<String> value = exchange.queryParameter(name);
        if (value.isEmpty() || value.get().isEmpty()) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(value.get()));
        } catch (NumberFormatException e) {
            throw new RequestFailure(400, "invalid " + name + " " + value.get());
        }
    }

    private static boolean flag(KubeletExchange exchange, String name) {
        return exchange.queryParameter(name).map(value -> switch (value) {
            case "1", "t", "T", "true", "TRUE", "True" -> true;
            default -> false;
        }).orElse(false);
    }

    private void execOrAttach(KubeletExchange exchange, String kind, List<String> segments) throws IOException {
        if (segments.size() != 4) {
            throw new RequestFailure(400, "Bad Request: the path must be /" + kind + "/<namespace>/<pod>/<container>");
        }
        String namespace = segments.get(1);
        String podName = segments.get(2);
        String containerName = segments.get(3);
        requireUpgrade(exchange);
        boolean tty = flag(exchange, "tty");
        boolean stdin = flag(exchange, "input");
        boolean stdout = flag(exchange, "output");
        boolean stderr = flag(exchange, "error");
        if (!stdin && !stdout && !stderr) {
            throw new RequestFailure(400, "you must specify at least 1 of stdin, stdout, stderr");
        }
        List<String> command = exchange.query().getOrDefault("command", List.of());
        if (kind.equals("exec") && command.isEmpty()) {
            throw new RequestFailure(400, "you must specify at least 1 command");
        }
        Pod pod = locator.pod(namespace, podName)
                .orElseThrow(() -> new RequestFailure(404, "pod does not exist"));
        String containerId = containerStatus(pod, containerName)
                .filter(status -> status.getState() != null && status.getState().getRunning() != null)
                .map(status -> stripScheme(status.getContainerID()))
                .filter(id -> !id.isEmpty())
                .orElseThrow(() -> new RequestFailure(404, "container not found (\"" + containerName + "\")"));
        URI url;
        try {
            url = kind.equals("exec")
                    ? runtime.exec(containerId, command, tty, stdin, stdout, stderr && !tty)
                    : runtime.attach(containerId, tty, stdin, stdout, stderr && !tty);
        } catch (IOException e) {
            throw new RequestFailure(500, e.getMessage());
        }
        relayToRuntime(exchange, url);
    }

    private void portForward(KubeletExchange exchange, List<String> segments) throws IOException {
        if (segments.size() != 3) {
            throw new RequestFailure(400, "Bad Request: the path must be /portForward/<namespace>/<pod>");
        }
        String namespace = segments.get(1);
        String podName = segments.get(2);
        requireUpgrade(exchange);
        List<Integer> ports = new ArrayList<>();
        for (String port : exchange.query().getOrDefault("port", List.of())) {
            try {
                ports.add(Integer.parseInt(port));
            } catch (NumberFormatException e) {
                throw new RequestFailure(400, "invalid port " + port);
            }
        }
        Pod pod = locator.pod(namespace, podName)
                .orElseThrow(() -> new RequestFailure(404, "pod does not exist"));
        String sandboxId = locator.sandboxId(pod).orElseThrow(() -> new RequestFailure(404, "pod not found (\"" + podName + "_" + namespace + "\")"));
        URI url;
        try {
            url = runtime.portForward(sandboxId, ports);
        } catch (IOException e) {
            throw new RequestFailure(500, e.getMessage());
        }
        relayToRuntime(exchange, url);
    }

    private static void requireUpgrade(KubeletExchange exchange) {
        if (exchange.header("upgrade").isEmpty()) {
            throw new RequestFailure(400, "Upgrade request required");
        }
    }

    /**
     * Hands the client's upgrade request to the runtime's streaming server at {@code url} and relays bytes both ways:
     * the server's answer (its 101 and the session, or its error) goes to the client as it is, as upstream's kubelet
     * proxies streaming requests.
     */
    private void relayToRuntime(KubeletExchange exchange, URI url) throws IOException {
        if (!"http".equals(url.getScheme()) || url.getHost() == null) {
            throw new RequestFailure(500, "unsupported streaming URL " + url);
        }
        int port = url.getPort() > 0 ? url.getPort() : 80;
        try (Socket runtimeSocket = new Socket()) {
            runtimeSocket.connect(new InetSocketAddress(url.getHost(), port), (int) RUNTIME_CONNECT_TIMEOUT.toMillis());
            runtimeSocket.setTcpNoDelay(true);
            StringBuilder request = new StringBuilder();
            String target = url.getRawPath() + (url.getRawQuery() == null ? "" : "?" + url.getRawQuery());
            request.append(exchange.method()).append(' ').append(target).append(" HTTP/1.1\r\n");
            request.append("Host: ").append(url.getHost()).append(':').append(port).append("\r\n");
            exchange.headers().forEach((name, values) -> {
                if (!HOP_HEADERS.contains(name)) {
                    values.forEach(value -> request.append(name).append(": ").append(value).append("\r\n"));
                }
            });
            request.append("\r\n");
            OutputStream toRuntime = runtimeSocket.getOutputStream();
            toRuntime.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
            toRuntime.flush();
            InputStream fromClient = exchange.rawInput();
            OutputStream toClient = exchange.rawOutput();
            Thread upstream = Thread.ofVirtual().name("kubelet-stream-to-runtime").start(() -> {
                try {
                    copy(fromClient, toRuntime);
                    runtimeSocket.shutdownOutput();
                } catch (IOException e) {
                    closeQuietly(runtimeSocket);
                }
            });
            try {
                copy(runtimeSocket.getInputStream(), toClient);
            } catch (SocketException e) {
                LOG.debug("streaming session ended: {}", e.toString());
            } finally {
                closeQuietly(runtimeSocket);
                upstream.interrupt();
            }
        }
    }

    private static void copy(InputStream from, OutputStream to) throws IOException {
        byte[] buffer = new byte[32 * 1024];
        while (true) {
            int count = from.read(buffer);
            if (count < 0) {
                return;
            }
            to.write(buffer, 0, count);
            to.flush();
        }
    }

    private static void respondQuietly(KubeletExchange exchange, int status, String message) {
        if (exchange == null || exchange.committed()) {
            return;
        }
        try {
            exchange.respondText(status, message);
        } catch (IOException e) {
            LOG.debug("could not answer: {}", e.toString());
        }
    }

    private static void closeQuietly(Closeable closeable) {
        try {
            closeable.close();
        } catch (IOException ignored) {
            // Already closed.
        }
    }

    /** A request that fails with an HTTP status and a plain-text message, as upstream's kubelet answers. */
    static final class RequestFailure extends RuntimeException {
        private final int status;

        RequestFailure(int status, String message) {
            super(message, null, false, false);
            this.status = status;
        }

        int status() {
            return status;
        }
    }
}
