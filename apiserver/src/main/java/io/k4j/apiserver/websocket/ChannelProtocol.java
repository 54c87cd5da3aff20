package io.k4j.apiserver.websocket;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The WebSocket subprotocols upstream's kubelet offers for exec, attach and port-forward streams, most capable first.
 * Each message carries one channel's data behind a channel prefix: a byte in the binary protocols, an ASCII digit
 * followed by base64 in the base64 ones. From v4 on, the error channel carries a {@code Status} as JSON; v5 adds the
 * close signal {@code [255, channel]} that half-closes a channel (e.g. stdin) without ending the connection.
 */
public enum ChannelProtocol {
    V5("v5.channel.k8s.io", true, true),
    V4("v4.channel.k8s.io", true, false),
    V4_BASE64("v4.base64.channel.k8s.io", false, false),
    V1("channel.k8s.io", true, false),
    V1_BASE64("base64.channel.k8s.io", false, false),
    /** A client that names no subprotocol gets the original binary framing. */
    UNNAMED("", true, false);

    private final String protocolName;
    private final boolean binary;
    private final boolean closeSignal;

    ChannelProtocol(String protocolName, boolean binary, boolean closeSignal) {
        this.protocolName = protocolName;
        this.binary = binary;
        this.closeSignal = closeSignal;
    }

    /** The {@code Sec-WebSocket-Protocol} token, empty for {@link #UNNAMED}. */
    public String protocolName() {
        return protocolName;
    }

    /** Binary messages with a channel byte, rather than text messages with a channel digit and base64. */
    public boolean binary() {
        return binary;
    }

    /** Whether a channel can be half-closed with {@code [255, channel]} (v5). */
    public boolean closeSignal() {
        return closeSignal;
    }

    /** Whether the error channel carries a JSON {@code Status} (v4 and later) rather than plain text. */
    public boolean statusOnErrorChannel() {
        return this == V5 || this == V4 || this == V4_BASE64;
    }

    public static Optional<ChannelProtocol> of(String protocolName) {
        return Arrays.stream(values()).filter(protocol -> protocol.protocolName.equals(protocolName)).findFirst();
    }

    /** Every protocol name, for {@link WebSockets#chooseProtocol}. */
    public static List<String> names() {
        return Arrays.stream(values()).map(ChannelProtocol::protocolName).toList();
    }
}
