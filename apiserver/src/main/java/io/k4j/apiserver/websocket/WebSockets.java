package io.k4j.apiserver.websocket;

import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.endpoints.HttpExchange;
import io.k4j.apiserver.endpoints.UpgradedConnection;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The server side of the WebSocket opening handshake (RFC 6455 section 4.2) on an {@link HttpExchange}: recognising an
 * upgrade request, checking it, choosing a subprotocol and switching the connection. Stateless and thread-safe.
 */
public final class WebSockets {
    /** The GUID RFC 6455 appends to the client's key. */
    private static final String KEY_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    /** Upstream's test for a Connection header that asks for an upgrade, among other tokens. */
    private static final Pattern CONNECTION_UPGRADE = Pattern.compile("(^|.*,\\s*)upgrade($|\\s*,.*)");

    private WebSockets() {}

    /** Whether the request asks to switch to WebSocket ({@code Upgrade: websocket} and {@code Connection: upgrade}). */
    public static boolean isUpgradeRequest(HttpExchange exchange) {
        String upgrade = exchange.header("upgrade");
        String connection = exchange.header("connection");
        return upgrade != null && upgrade.equalsIgnoreCase("websocket")
                && connection != null && CONNECTION_UPGRADE.matcher(connection.toLowerCase(Locale.ROOT)).matches();
    }

    /** The subprotocols the client offers ({@code Sec-WebSocket-Protocol}, all header lines), in its order. */
    public static List<String> offeredProtocols(HttpExchange exchange) {
        List<String> offered = new ArrayList<>();
        for (String line : exchange.headers().getOrDefault("sec-websocket-protocol", List.of())) {
            for (String token : line.split(",")) {
                String protocol = token.trim();
                if (!protocol.isEmpty()) {
                    offered.add(protocol);
                }
            }
        }
        return List.copyOf(offered);
    }

    /**
     * The first offered protocol the server supports, as upstream's channel handshake chooses; {@code ""} stands for
     * "no subprotocol" and matches a client that offers none.
     *
     * @throws StatusException 400 when none matches
     */
    public static String chooseProtocol(List<String> offered, List<String> supported) {
        List<String> candidates = offered.isEmpty() ? List.of("") : offered;
        for (String candidate : candidates) {
            if (supported.contains(candidate)) {
                return candidate;
            }
        }
        throw StatusException.badRequest("requested protocol(s) are not supported: " + offered + "; supports " + supported);
    }

    /** {@code Sec-WebSocket-Accept} for a client's {@code Sec-WebSocket-Key}. */
    public static String acceptKey(String key) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest((key + KEY_GUID).getBytes(StandardCharsets.US_ASCII));
            return Base64.getEncoder().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is missing from the JDK", e);
        }
    }

    /**
     * Completes the handshake with {@code protocol} (empty for none) and returns the open session.
     *
     * @throws StatusException 400 when the request is not a valid WebSocket handshake or the connection cannot be
     *     upgraded (HTTP/2) or asks for another WebSocket version than 13
     */
    public static WebSocketSession accept(HttpExchange exchange, String protocol, int maxMessageBytes) throws IOException {
        if (!exchange.method().equals("GET") || !isUpgradeRequest(exchange)) {
            throw StatusException.badRequest("not a WebSocket upgrade request");
        }
        String version = exchange.header("sec-websocket-version");
        if (!"13".equals(version == null ? null : version.trim())) {
            exchange.addHeader("Sec-WebSocket-Version", "13");
            throw StatusException.badRequest("unsupported WebSocket version " + version + "; supports 13");
        }
        String key = Optional.ofNullable(exchange.header("sec-websocket-key")).map(String::trim).orElse("");
        byte[] decodedKey;
        try {
            decodedKey = Base64.getDecoder().decode(key);
        } catch (IllegalArgumentException e) {
            decodedKey = new byte[0];
        }
        if (decodedKey.length != 16) {
            throw StatusException.badRequest("missing or invalid Sec-WebSocket-Key");
        }
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Upgrade", "websocket");
        headers.put("Connection", "Upgrade");
        headers.put("Sec-WebSocket-Accept", acceptKey(key));
        if (!protocol.isEmpty()) {
            headers.put("Sec-WebSocket-Protocol", protocol);
        }
        UpgradedConnection connection;
        try {
            connection = exchange.switchProtocols(headers);
        } catch (UnsupportedOperationException e) {
            throw StatusException.badRequest("WebSocket needs an HTTP/1.1 connection");
        }
        return new WebSocketSession(connection.input(), connection.output(), connection, protocol, maxMessageBytes);
    }
}
