package io.k4j.apiserver.kubelet;

import io.k4j.apiserver.pki.ClusterPki;
import io.k4j.apiserver.spdy.SpdyConnection;
import io.k4j.apiserver.spdy.SpdyStream;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * A kubelet endpoint for the apiserver's tests, on loopback TLS with client certificates required: canned container
 * logs, a remote command server speaking SPDY {@code v4.channel.k8s.io} whose "process" echoes stdin in upper case until
 * stdin ends, and a port-forward upgrade that echoes raw bytes.
 */
final class FakeKubelet implements AutoCloseable {
    final List<String> requests = new CopyOnWriteArrayList<>();
    final List<String> clients = new CopyOnWriteArrayList<>();
    private final SSLServerSocket socket;

    FakeKubelet(KeyStore servingKeyStore, char[] password, X509Certificate clientCa) throws Exception {
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(servingKeyStore, password);
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", clientCa);
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys.getKeyManagers(), trustManagers.getTrustManagers(), null);
        socket = (SSLServerSocket) context.getServerSocketFactory().createServerSocket(0, 50, InetAddress.getLoopbackAddress());
        socket.setNeedClientAuth(true);
        Thread.ofVirtual().start(() -> {
            while (!socket.isClosed()) {
                try {
                    SSLSocket connection = (SSLSocket) socket.accept();
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

    @Override
    public void close() throws IOException {
        socket.close();
    }

    private void serve(SSLSocket connection) {
        try {
            connection.startHandshake();
            clients.add(ClusterPki.commonName((X509Certificate) connection.getSession().getPeerCertificates()[0]));
            InputStream input = new BufferedInputStream(connection.getInputStream());
            OutputStream output = connection.getOutputStream();
            String head = readHead(input);
            String requestLine = head.substring(0, head.indexOf("\r\n"));
            requests.add(requestLine);
            String target = requestLine.split(" ")[1];
            if (target.startsWith("/containerLogs/") && !target.startsWith("/containerLogs/default/web/c2")) {
                respond(output, 200, "line one\nline two\n");
            } else if (target.startsWith("/containerLogs/")) {
                respond(output, 400, "container \"c2\" in pod \"web\" is waiting to start: ContainerCreating");
            } else if (target.startsWith("/exec/") && head.toLowerCase(Locale.ROOT).contains("upgrade: spdy/3.1")) {
                output.write(("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n"
                        + "X-Stream-Protocol-Version: v4.channel.k8s.io\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                output.flush();
                runCommand(input, output, connection, target);
                return;
            } else if (target.startsWith("/portForward/") && head.toLowerCase(Locale.ROOT).contains("upgrade: spdy/3.1")) {
                output.write(("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n"
                        + "X-Stream-Protocol-Version: portforward.k8s.io\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                output.flush();
                forwardPorts(input, output, connection);
                return;
            } else {
                respond(output, 404, "404 page not found");
            }
        } catch (IOException e) {
            // The apiserver went away.
        } finally {
            try {
                connection.close();
            } catch (IOException ignored) {
                // Closed already.
            }
        }
    }

    /**
     * The server half of remote command v4: waits for the streams the request asked for, then runs its "process":
     * {@code false} fails with exit code 1; with stdin, stdin is echoed upper-cased until it ends; else a greeting.
     */
    private static void runCommand(InputStream input, OutputStream output, SSLSocket connection, String target) throws IOException {
        List<String> expected = new java.util.ArrayList<>(List.of("error"));
        for (String[] flag : new String[][] {{"input=1", "stdin"}, {"output=1", "stdout"}, {"error=1", "stderr"}, {"tty=1", "resize"}}) {
            if (target.contains(flag[0])) {
                expected.add(flag[1]);
            }
        }
        Map<String, SpdyStream> streams = new ConcurrentHashMap<>();
        BlockingQueue<String> arrived = new LinkedBlockingQueue<>();
        SpdyConnection session = new SpdyConnection(input, output, connection, SpdyConnection.Role.SERVER, stream -> {
            try {
                stream.reply();
            } catch (IOException e) {
                return;
            }
            streams.put(stream.header("streamtype"), stream);
            arrived.add(stream.header("streamtype"));
        }).start("fake-kubelet-spdy");
        try {
            while (!streams.keySet().containsAll(expected)) {
                if (arrived.poll(20, TimeUnit.SECONDS) == null) {
                    return;
                }
            }
            OutputStream error = streams.get("error").output();
            if (target.contains("command=false")) {
                error.write(("{\"metadata\":{},\"status\":\"Failure\",\"message\":\"command terminated with non-zero exit code: "
                        + "error executing command [false], exit code 1\",\"reason\":\"NonZeroExitCode\",\"details\":{\"causes\":[{\"reason\":\"ExitCode\","
                        + "\"message\":\"1\"}]}}").getBytes(StandardCharsets.UTF_8));
            } else {
                OutputStream stdout = streams.get("stdout").output();
                if (streams.containsKey("stdin")) {
                    byte[] stdin = streams.get("stdin").input().readAllBytes();
                    stdout.write(new String(stdin, StandardCharsets.UTF_8).toUpperCase(Locale.ROOT).getBytes(StandardCharsets.UTF_8));
                } else {
                    stdout.write("hello from the fake kubelet\n".getBytes(StandardCharsets.UTF_8));
                }
                stdout.close();
                error.write("{\"metadata\":{},\"status\":\"Success\"}".getBytes(StandardCharsets.UTF_8));
            }
            error.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            session.close();
        }
    }

    /**
     * The server half of port-forward: each forwarded connection is an error and a data stream with the same request
     * id; data is echoed back, and the error stream is closed (no error) when the client ends the data stream.
     */
    private static void forwardPorts(InputStream input, OutputStream output, SSLSocket connection) throws IOException {
        Map<String, SpdyStream> errorStreams = new ConcurrentHashMap<>();
        SpdyConnection session = new SpdyConnection(input, output, connection, SpdyConnection.Role.SERVER, stream -> {
            try {
                stream.reply();
            } catch (IOException e) {
                return;
            }
            if ("error".equals(stream.header("streamtype"))) {
                errorStreams.put(stream.header("requestid"), stream);
                return;
            }
            Thread.ofVirtual().start(() -> {
                try (OutputStream echo = stream.output()) {
                    stream.input().transferTo(echo);
                } catch (IOException e) {
                    // The connection ended.
                }
                SpdyStream error = errorStreams.get(stream.header("requestid"));
                if (error != null) {
                    try {
                        error.output().close();
                    } catch (IOException e) {
                        // The connection ended.
                    }
                }
            });
        }).start("fake-kubelet-port-forward");
        try {
            session.awaitClosed(java.time.Duration.ofMinutes(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            session.close();
        }
    }

    private static void respond(OutputStream output, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        output.write(("HTTP/1.1 " + status + " X\r\nContent-Type: text/plain\r\nContent-Length: " + bytes.length + "\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        output.write(bytes);
        output.flush();
    }

    static String readHead(InputStream input) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int next = input.read();
            if (next < 0) {
                throw new IOException("connection closed within the head");
            }
            head.write(next);
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }
}
