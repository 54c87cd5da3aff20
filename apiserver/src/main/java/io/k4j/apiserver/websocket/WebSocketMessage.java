package io.k4j.apiserver.websocket;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;

/**
 * One complete WebSocket data message (fragments already joined).
 *
 * @param text whether it is a text message (its payload is then valid UTF-8) rather than a binary one
 * @param payload the message's bytes; not copied, callers must not change them
 */
public record WebSocketMessage(boolean text, byte[] payload) {
    public WebSocketMessage {
        requireNonNull(payload, "payload is null");
    }

    public static WebSocketMessage text(String text) {
        return new WebSocketMessage(true, text.getBytes(StandardCharsets.UTF_8));
    }

    public static WebSocketMessage binary(byte[] payload) {
        return new WebSocketMessage(false, payload);
    }

    /** The payload as text (UTF-8). */
    public String asText() {
        return new String(payload, StandardCharsets.UTF_8);
    }
}
