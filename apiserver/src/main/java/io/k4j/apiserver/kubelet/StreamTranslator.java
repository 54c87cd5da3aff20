package io.k4j.apiserver.kubelet;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.apiserver.spdy.SpdyConnection;
import io.k4j.apiserver.spdy.SpdyFrame;
import io.k4j.apiserver.spdy.SpdyStream;
import io.k4j.apiserver.websocket.ChannelConnection;
import io.k4j.apiserver.websocket.ChannelConnection.TerminalSize;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves an exec or attach WebSocket ({@code v5.channel.k8s.io} and older channel protocols) through a SPDY
 * {@code v4.channel.k8s.io} session with the kubelet, as upstream's stream translator does since 1.30: each channel
 * becomes a SPDY stream named by its {@code streamType} header; a v5 close signal on stdin becomes the stdin stream's
 * FIN (which is what lets {@code kubectl cp} into a pod end {@code tar}); terminal sizes are sent on the resize
 * stream; the kubelet's Status on the error stream ends the session. SPDY is what the kubelet's runtime (containerd's
 * streaming server) offers with a half-closable stdin; its WebSocket protocols cannot close stdin.
 *
 * <p>Not thread-safe: one instance serves one session on the calling thread plus a few virtual threads.
 */
public final class StreamTranslator {
    /** The remote command protocol asked of the kubelet. */
    public static final String KUBELET_PROTOCOL = "v4.channel.k8s.io";

    private static final Logger LOG = LoggerFactory.getLogger(StreamTranslator.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration STREAM_CREATION_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration RESIZE_POLL = Duration.ofMillis(500);

    /** Which standard streams a session has; with a terminal there is no stderr (it is merged into stdout). */
    public record Streams(boolean stdin, boolean stdout, boolean stderr, boolean tty) {
        public Streams {
            if (tty) {
                stderr = false;
            }
        }
    }

    private final ChannelConnection client;
    private final Streams streams;

    public StreamTranslator(ChannelConnection client, Streams streams) {
        this.client = requireNonNull(client, "client is null");
        this.streams = requireNonNull(streams, "streams is null");
    }

    /** The request headers that ask the kubelet for a SPDY remote command session. */
    public static Map<String, List<String>> kubeletUpgradeHeaders() {
        return Map.of("Connection", List.of("Upgrade"), "Upgrade", List.of("SPDY/3.1"), "X-Stream-Protocol-Version", List.of(KUBELET_PROTOCOL));
    }

    /**
     * Runs the session until the kubelet ends it or the client goes away; the client connection is closed at the end.
     *
     * @param kubelet the kubelet's 101 answer to {@link #kubeletUpgradeHeaders()}
     */
    public void serve(KubeletResponse kubelet) throws IOException {
        SpdyConnection session = new SpdyConnection(kubelet.rawInput(), kubelet.rawOutput(), kubelet, SpdyConnection.Role.CLIENT, stream -> {
            try {
                stream.reset(SpdyFrame.REFUSED_STREAM);
            } catch (IOException ignored) {
                // The kubelet never opens streams in this protocol; if the connection broke, the session ends anyway.
            }
        }).start("spdy-kubelet");
        List<Thread> outputs = new ArrayList<>();
        try {
            SpdyStream error = open(session, "error");
            SpdyStream stdin = streams.stdin() ? open(session, "stdin") : null;
            SpdyStream stdout = streams.stdout() ? open(session, "stdout") : null;
            SpdyStream stderr = streams.stderr() ? open(session, "stderr") : null;
            SpdyStream resize = streams.tty() ? open(session, "resize") : null;
            if (stdin != null) {
                Thread.ofVirtual().name("exec-stdin").start(() -> copyStdin(stdin));
            }
            if (resize != null) {
                Thread.ofVirtual().name("exec-resize").start(() -> forwardSizes(resize, session));
            }
            if (stdout != null) {
                outputs.add(Thread.ofVirtual().name("exec-stdout").start(() -> copyOutput(stdout.input(), ChannelConnection.STDOUT)));
            }
            if (stderr != null) {
                outputs.add(Thread.ofVirtual().name("exec-stderr").start(() -> copyOutput(stderr.input(), ChannelConnection.STDERR)));
            }
            Thread clientWatch = Thread.ofVirtual().name("exec-client-watch").start(() -> {
                try {
                    client.awaitClientClosed(Duration.ofDays(365));
                    session.close();
                } catch (InterruptedException | IOException e) {
                    // Interrupted when the session ended first.
                }
            });
            byte[] status = error.input().readAllBytes();
            for (Thread output : outputs) {
                output.join();
            }
            if (status.length > 0) {
                sendError(status);
            }
            clientWatch.interrupt();
        } catch (StreamSetupException e) {
            sendError(failure(e.getMessage(), "InternalError", 500));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            UpgradeProxy.closeQuietly(session);
            client.close();
        }
    }

    /**
     * Reports a failure that happened before a session existed (e.g. the kubelet refused the upgrade) on the error
     * channel and closes the client connection.
     */
    public void fail(String message, String reason, int code) throws IOException {
        try {
            sendError(failure(message, reason, code));
        } finally {
            client.close();
        }
    }

    private SpdyStream open(SpdyConnection session, String type) throws IOException, InterruptedException {
        SpdyStream stream = session.openStream(Map.of("streamType", List.of(type)));
        if (!stream.awaitReply(STREAM_CREATION_TIMEOUT)) {
            throw new StreamSetupException("the kubelet did not accept the " + type + " stream");
        }
        return stream;
    }

    private void copyStdin(SpdyStream stdin) {
        InputStream input = client.input(ChannelConnection.STDIN);
        try (OutputStream output = stdin.output()) {
            input.transferTo(output);
        } catch (IOException e) {
            LOG.debug("stdin relay ended: {}", e.toString());
        }
    }

    private void forwardSizes(SpdyStream resize, SpdyConnection session) {
        try (OutputStream output = resize.output()) {
            while (!session.awaitClosed(Duration.ZERO)) {
                Optional<TerminalSize> size = client.nextTerminalSize(RESIZE_POLL);
                if (size.isPresent()) {
                    ObjectNode json = JSON.createObjectNode().put("Width", size.get().width()).put("Height", size.get().height());
                    output.write(JSON.writeValueAsBytes(json));
                } else if (client.awaitClientClosed(Duration.ZERO)) {
                    break;
                }
            }
        } catch (IOException e) {
            LOG.debug("resize relay ended: {}", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void copyOutput(InputStream from, int channel) {
        byte[] buffer = new byte[32 * 1024];
        try {
            while (true) {
                int count = from.read(buffer);
                if (count < 0) {
                    break;
                }
                client.send(channel, java.util.Arrays.copyOf(buffer, count));
            }
        } catch (IOException e) {
            LOG.debug("output relay on channel {} ended: {}", channel, e.toString());
        }
    }

    /** Writes a Status to the error channel: as JSON in v4 and later, as its message in the older protocols. */
    private void sendError(byte[] status) throws IOException {
        try {
            if (client.protocol().statusOnErrorChannel()) {
                client.send(ChannelConnection.ERROR, status);
                return;
            }
            JsonNode parsed = JSON.readTree(status);
            if (parsed != null && parsed.path("status").asText().equals("Success")) {
                return;
            }
            String message = parsed == null ? new String(status, StandardCharsets.UTF_8) : parsed.path("message").asText(new String(status, StandardCharsets.UTF_8));
            client.send(ChannelConnection.ERROR, message.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            LOG.debug("could not send the exit status: {}", e.toString());
        }
    }

    static byte[] failure(String message, String reason, int code) {
        ObjectNode status = JSON.createObjectNode();
        status.putObject("metadata");
        status.put("status", "Failure");
        status.put("message", message);
        status.put("reason", reason);
        status.put("code", code);
        try {
            return JSON.writeValueAsBytes(status);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final class StreamSetupException extends IOException {
        StreamSetupException(String message) {
            super(message);
        }
    }
}
