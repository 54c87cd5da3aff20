package io.k4j.apiserver.websocket;

import static java.util.Objects.requireNonNull;

import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.endpoints.HttpExchange;
import io.k4j.apiserver.endpoints.UpgradedConnection;
import io.k4j.apiserver.stream.BulkOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A watch served over WebSocket, as upstream serves {@code ?watch=true} requests that ask for an upgrade: the watch
 * handler writes its newline-delimited events as usual, and each event (with its newline) becomes one message, a text
 * message for JSON and a binary one otherwise. Errors before the stream starts are plain HTTP responses. The
 * client's messages are read and dropped; when the client closes, the watch ends at once (its thread is
 * interrupted) rather than at its next event. As upstream (golang.org/x/net/websocket), a client may name one
 * subprotocol, which is echoed, but not several.
 *
 * <p>Not thread-safe, like any exchange: used by the request's thread (plus the internal reader thread).
 */
public final class WatchOverWebSocket implements HttpExchange {
    private static final Logger LOG = LoggerFactory.getLogger(WatchOverWebSocket.class);

    private final HttpExchange delegate;
    private final String protocol;
    private final Object lock = new Object();
    private WebSocketSession session;
    private Thread streamingThread;
    private boolean interrupted;

    /** @throws StatusException 400 when the client offers more than one subprotocol */
    public WatchOverWebSocket(HttpExchange delegate) {
        this.delegate = requireNonNull(delegate, "delegate is null");
        List<String> offered = WebSockets.offeredProtocols(delegate);
        if (offered.size() > 1) {
            throw StatusException.badRequest("a watch accepts at most one WebSocket subprotocol, got " + offered);
        }
        this.protocol = offered.isEmpty() ? "" : offered.get(0);
    }

    @Override
    public String method() {
        return delegate.method();
    }

    @Override
    public String path() {
        return delegate.path();
    }

    @Override
    public Map<String, List<String>> query() {
        return delegate.query();
    }

    @Override
    public Map<String, List<String>> headers() {
        return delegate.headers();
    }

    @Override
    public byte[] body() throws IOException {
        return delegate.body();
    }

    @Override
    public void addHeader(String name, String value) {
        delegate.addHeader(name, value);
    }

    @Override
    public void respond(int status, String contentType, byte[] body) throws IOException {
        delegate.respond(status, contentType, body);
    }

    @Override
    public UpgradedConnection switchProtocols(Map<String, String> headers) throws IOException {
        return delegate.switchProtocols(headers);
    }

    /** Completes the handshake and returns a stream whose lines become messages. */
    @Override
    public OutputStream startStream(int status, String contentType) throws IOException {
        if (status != 200) {
            throw new IllegalArgumentException("a watch stream starts with 200, not " + status);
        }
        delegate.addHeader("Content-Type", contentType);
        WebSocketSession opened = WebSockets.accept(delegate, protocol, WebSocketSession.DEFAULT_MAX_MESSAGE_BYTES);
        synchronized (lock) {
            session = opened;
            streamingThread = Thread.currentThread();
        }
        Thread.ofVirtual().name("websocket-watch-reader").start(this::readUntilClosed);
        return new EventMessages(opened, contentType.startsWith("application/json"));
    }

    @Override
    public boolean committed() {
        synchronized (lock) {
            return session != null || delegate.committed();
        }
    }

    /** The client sends nothing a watch needs; its close (or a broken connection) ends the watch. */
    private void readUntilClosed() {
        WebSocketSession reading;
        synchronized (lock) {
            reading = session;
        }
        try {
            while (reading.receive().isPresent()) {
                // Dropped: a watch takes no input.
            }
        } catch (IOException e) {
            LOG.debug("watch WebSocket ended: {}", e.toString());
        } finally {
            synchronized (lock) {
                if (streamingThread != null) {
                    interrupted = true;
                    streamingThread.interrupt();
                }
            }
        }
    }

    private void streamEnded() {
        synchronized (lock) {
            streamingThread = null;
            if (interrupted) {
                // The interrupt was only meant to end the watch; the rest of the request must not see it.
                Thread.interrupted();
            }
        }
    }

    /** Collects bytes until a newline and sends each complete line as one message. */
    private final class EventMessages extends BulkOutputStream {
        private final WebSocketSession target;
        private final boolean text;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();
        private boolean closed;

        EventMessages(WebSocketSession target, boolean text) {
            this.target = target;
            this.text = text;
        }

        @Override
        public void write(byte[] buffer, int offset, int length) throws IOException {
            int start = offset;
            int end = offset + length;
            for (int i = offset; i < end; i++) {
                if (buffer[i] == '\n') {
                    line.write(buffer, start, i + 1 - start);
                    send(line.toByteArray());
                    line.reset();
                    start = i + 1;
                }
            }
            line.write(buffer, start, end - start);
        }

        private void send(byte[] message) throws IOException {
            if (text) {
                target.sendText(message);
            } else {
                target.sendBinary(message);
            }
        }

        @Override
        public void close() throws IOException {
            if (closed) {
                return;
            }
            closed = true;
            try {
                if (line.size() > 0) {
                    send(Arrays.copyOf(line.toByteArray(), line.size()));
                }
            } finally {
                streamEnded();
                target.close();
            }
        }
    }
}
