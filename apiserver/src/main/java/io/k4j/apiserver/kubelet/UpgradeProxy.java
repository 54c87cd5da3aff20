package io.k4j.apiserver.kubelet;

import io.k4j.apiserver.endpoints.HttpExchange;
import io.k4j.apiserver.endpoints.UpgradedConnection;
import io.k4j.apiserver.websocket.WebSocketMessage;
import io.k4j.apiserver.websocket.WebSocketSession;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Byte-level relays between a client and a kubelet connection that switched protocols: the client's own upgrade (SPDY,
 * or a WebSocket protocol the kubelet speaks) passed through unchanged, as upstream's upgrade-aware proxy does, and a
 * SPDY session tunnelled in WebSocket binary messages ({@code SPDY/3.1+portforward.k8s.io}, what {@code kubectl
 * port-forward} 1.31+ sends), unwrapped on the way to the kubelet and wrapped on the way back.
 *
 * <p>Stateless and thread-safe; each relay runs on the calling thread plus one virtual thread.
 */
public final class UpgradeProxy {
    /** Request headers a protocol switch needs the kubelet to see. */
    private static final Set<String> FORWARDED_REQUEST_HEADERS = Set.of("upgrade", "x-stream-protocol-version", "sec-websocket-key",
            "sec-websocket-version", "sec-websocket-protocol", "user-agent");
    /** Response headers of the kubelet's 101 that the client needs. */
    private static final Set<String> FORWARDED_RESPONSE_HEADERS = Set.of("upgrade", "x-stream-protocol-version", "sec-websocket-accept",
            "sec-websocket-protocol");
    private static final int BUFFER_BYTES = 32 * 1024;

    private UpgradeProxy() {}

    /** The request headers to send to the kubelet for the client's upgrade. */
    public static Map<String, List<String>> upgradeHeaders(HttpExchange exchange) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        headers.put("Connection", List.of("Upgrade"));
        exchange.headers().forEach((name, values) -> {
            if (FORWARDED_REQUEST_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                headers.put(name, values);
            }
        });
        return headers;
    }

    /**
     * Answers the client's upgrade with the kubelet's 101 and relays bytes both ways until either side ends; then both
     * connections are closed.
     */
    public static void relay(HttpExchange exchange, KubeletResponse kubelet) throws IOException {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Connection", "Upgrade");
        kubelet.headers().forEach((name, values) -> {
            if (FORWARDED_RESPONSE_HEADERS.contains(name) && !values.isEmpty()) {
                headers.put(canonical(name), values.get(0));
            }
        });
        UpgradedConnection client = exchange.switchProtocols(headers);
        try (client; kubelet) {
            Thread upstream = Thread.ofVirtual().name("upgrade-proxy-to-kubelet").start(() -> copy(client.input(), output(kubelet), List.of(client, kubelet)));
            copy(kubelet.rawInput(), client.output(), List.of(client, kubelet));
            join(upstream);
        }
    }

    /**
     * Accepts the client's WebSocket with {@code protocol} and carries the kubelet connection's bytes in binary
     * messages both ways until either side ends.
     */
    public static void tunnel(HttpExchange exchange, String protocol, KubeletResponse kubelet) throws IOException {
        WebSocketSession session = io.k4j.apiserver.websocket.WebSockets.accept(exchange, protocol, WebSocketSession.DEFAULT_MAX_MESSAGE_BYTES);
        try (session; kubelet) {
            Thread upstream = Thread.ofVirtual().name("websocket-tunnel-to-kubelet").start(() -> {
                try (OutputStream toKubelet = kubelet.rawOutput()) {
                    while (true) {
                        Optional<WebSocketMessage> message = session.receive();
                        if (message.isEmpty()) {
                            break;
                        }
                        toKubelet.write(message.get().payload());
                        toKubelet.flush();
                    }
                } catch (IOException e) {
                    // The client or the kubelet went away; closing both below ends the other direction.
                } finally {
                    closeQuietly(kubelet);
                }
            });
            InputStream fromKubelet = kubelet.rawInput();
            byte[] buffer = new byte[BUFFER_BYTES];
            try {
                while (true) {
                    int count = fromKubelet.read(buffer);
                    if (count < 0) {
                        break;
                    }
                    session.sendBinary(java.util.Arrays.copyOf(buffer, count));
                }
            } catch (IOException e) {
                // As above.
            }
            closeQuietly(session);
            join(upstream);
        }
    }

    private static OutputStream output(KubeletResponse kubelet) {
        try {
            return kubelet.rawOutput();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void copy(InputStream from, OutputStream to, List<Closeable> closeWhenDone) {
        byte[] buffer = new byte[BUFFER_BYTES];
        try {
            while (true) {
                int count = from.read(buffer);
                if (count < 0) {
                    break;
                }
                to.write(buffer, 0, count);
                to.flush();
            }
        } catch (IOException | RuntimeException e) {
            // One side went away: closing both ends the other direction too.
        } finally {
            closeWhenDone.forEach(UpgradeProxy::closeQuietly);
        }
    }

    private static void join(Thread thread) throws IOException {
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while relaying an upgraded connection");
        }
    }

    static void closeQuietly(Closeable closeable) {
        try {
            closeable.close();
        } catch (IOException ignored) {
            // Already closed or broken; nothing more to do.
        }
    }

    private static String canonical(String name) {
        StringBuilder result = new StringBuilder(name.length());
        boolean upper = true;
        for (char character : name.toCharArray()) {
            result.append(upper ? Character.toUpperCase(character) : character);
            upper = character == '-';
        }
        return result.toString();
    }
}
