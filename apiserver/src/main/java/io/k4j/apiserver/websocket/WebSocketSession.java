package io.k4j.apiserver.websocket;

import static java.util.Objects.requireNonNull;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The server end of a WebSocket connection (RFC 6455) over the byte streams of an upgraded connection: it sends
 * unfragmented, unmasked messages and receives messages from a client, which must mask every frame. Control frames
 * are answered as the RFC requires (a ping with a pong, a close with a close); violations end the connection with the
 * matching close code (1002 protocol error, 1007 invalid UTF-8 text, 1009 message too big). No extensions are
 * negotiated, so any reserved bit set is a protocol error.
 *
 * <p>Thread-safe for sending (one frame at a time); {@link #receive()} is for one reading thread.
 */
public final class WebSocketSession implements Closeable {
    public static final int NORMAL_CLOSURE = 1000;
    public static final int GOING_AWAY = 1001;
    public static final int PROTOCOL_ERROR = 1002;
    public static final int UNSUPPORTED_DATA = 1003;
    public static final int NO_STATUS_RECEIVED = 1005;
    public static final int INVALID_PAYLOAD = 1007;
    public static final int POLICY_VIOLATION = 1008;
    public static final int MESSAGE_TOO_BIG = 1009;
    public static final int INTERNAL_ERROR = 1011;

    /** Large enough for any API object (etcd's limit is 1.5 MiB) and for exec/attach chunks. */
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

    private static final int CONTINUATION = 0x0;
    private static final int TEXT = 0x1;
    private static final int BINARY = 0x2;
    private static final int CLOSE = 0x8;
    private static final int PING = 0x9;
    private static final int PONG = 0xa;
    private static final int MAX_CONTROL_PAYLOAD = 125;

    private final DataInputStream input;
    private final OutputStream output;
    private final Closeable connection;
    private final String protocol;
    private final int maxMessageBytes;
    private final Object sendLock = new Object();
    private boolean closeSent;
    private volatile boolean closeReceived;
    private volatile int closeCode = NO_STATUS_RECEIVED;

    /**
     * @param input the bytes the client sends, after the handshake
     * @param output where frames to the client go
     * @param connection closed when the session ends
     * @param protocol the negotiated subprotocol, empty when none
     */
    public WebSocketSession(InputStream input, OutputStream output, Closeable connection, String protocol, int maxMessageBytes) {
        this.input = new DataInputStream(requireNonNull(input, "input is null"));
        this.output = requireNonNull(output, "output is null");
        this.connection = requireNonNull(connection, "connection is null");
        this.protocol = requireNonNull(protocol, "protocol is null");
        if (maxMessageBytes <= 0) {
            throw new IllegalArgumentException("maxMessageBytes must be positive");
        }
        this.maxMessageBytes = maxMessageBytes;
    }

    /** The negotiated subprotocol ({@code Sec-WebSocket-Protocol}), empty when none was. */
    public String protocol() {
        return protocol;
    }

    public void sendText(String text) throws IOException {
        sendFrame(TEXT, text.getBytes(StandardCharsets.UTF_8));
    }

    /** Sends {@code utf8} as a text message; the caller guarantees it is valid UTF-8. */
    public void sendText(byte[] utf8) throws IOException {
        sendFrame(TEXT, utf8);
    }

    public void sendBinary(byte[] payload) throws IOException {
        sendFrame(BINARY, payload);
    }

    public void ping(byte[] payload) throws IOException {
        if (payload.length > MAX_CONTROL_PAYLOAD) {
            throw new IllegalArgumentException("a ping carries at most 125 bytes");
        }
        sendFrame(PING, payload);
    }

    /**
     * The next data message, answering control frames on the way; empty once the client closed the connection (the
     * close is answered) or the stream ended.
     *
     * @throws IOException when reading fails or the client broke the protocol (the connection is then closed with the
     *     matching code)
     */
    public Optional<WebSocketMessage> receive() throws IOException {
        ByteArrayOutputStream fragments = null;
        boolean fragmentedText = false;
        while (true) {
            int first;
            try {
                first = input.read();
            } catch (IOException e) {
                if (closeSent) {
                    return Optional.empty();
                }
                throw e;
            }
            if (first < 0) {
                return Optional.empty();
            }
            int second = input.readUnsignedByte();
            boolean fin = (first & 0x80) != 0;
            int opcode = first & 0x0f;
            if ((first & 0x70) != 0) {
                throw fail(PROTOCOL_ERROR, "reserved bits set without a negotiated extension");
            }
            if ((second & 0x80) == 0) {
                throw fail(PROTOCOL_ERROR, "client frames must be masked");
            }
            long length = second & 0x7f;
            if (length == 126) {
                length = input.readUnsignedShort();
            } else if (length == 127) {
                length = input.readLong();
                if (length < 0) {
                    throw fail(PROTOCOL_ERROR, "invalid frame length");
                }
            }
            boolean control = (opcode & 0x08) != 0;
            if (control && (!fin || length > MAX_CONTROL_PAYLOAD)) {
                throw fail(PROTOCOL_ERROR, "control frames must be unfragmented and at most 125 bytes");
            }
            int buffered = fragments == null ? 0 : fragments.size();
            if (!control && length + buffered > maxMessageBytes) {
                throw fail(MESSAGE_TOO_BIG, "message larger than " + maxMessageBytes + " bytes");
            }
            byte[] mask = new byte[4];
            input.readFully(mask);
            byte[] payload = new byte[(int) length];
            input.readFully(payload);
            for (int i = 0; i < payload.length; i++) {
                payload[i] ^= mask[i & 3];
            }
            switch (opcode) {
                case PING -> sendFrame(PONG, payload);
                case PONG -> {
                    // An answer to our ping, or unsolicited as a heartbeat: nothing to do.
                }
                case CLOSE -> {
                    onClose(payload);
                    return Optional.empty();
                }
                case TEXT, BINARY -> {
                    if (fragments != null) {
                        throw fail(PROTOCOL_ERROR, "a new message started before the fragmented one ended");
                    }
                    if (fin) {
                        return Optional.of(message(opcode == TEXT, payload));
                    }
                    fragments = new ByteArrayOutputStream();
                    fragments.writeBytes(payload);
                    fragmentedText = opcode == TEXT;
                }
                case CONTINUATION -> {
                    if (fragments == null) {
                        throw fail(PROTOCOL_ERROR, "continuation frame without a message to continue");
                    }
                    fragments.writeBytes(payload);
                    if (fin) {
                        return Optional.of(message(fragmentedText, fragments.toByteArray()));
                    }
                }
                default -> throw fail(PROTOCOL_ERROR, "unknown opcode " + opcode);
            }
        }
    }

    /** Whether the client sent a close frame; {@link #closeCode()} then tells its code. */
    public boolean closeReceived() {
        return closeReceived;
    }

    /** The client's close code, {@link #NO_STATUS_RECEIVED} when it gave none or did not close. */
    public int closeCode() {
        return closeCode;
    }

    /** Sends a close frame (once) with {@code code} and {@code reason} (at most 123 bytes of UTF-8). */
    public void sendClose(int code, String reason) throws IOException {
        byte[] reasonBytes = reason.getBytes(StandardCharsets.UTF_8);
        if (reasonBytes.length > MAX_CONTROL_PAYLOAD - 2) {
            reasonBytes = java.util.Arrays.copyOf(reasonBytes, MAX_CONTROL_PAYLOAD - 2);
        }
        ByteBuffer payload = ByteBuffer.allocate(2 + reasonBytes.length);
        payload.putShort((short) code).put(reasonBytes);
        synchronized (sendLock) {
            if (closeSent) {
                return;
            }
            writeFrame(CLOSE, payload.array());
            closeSent = true;
        }
    }

    /** Closes the session: a normal close frame unless one was sent, then the connection. */
    @Override
    public void close() throws IOException {
        try {
            sendClose(NORMAL_CLOSURE, "");
        } catch (IOException ignored) {
            // The connection is gone already; closing it below is all that is left.
        } finally {
            connection.close();
        }
    }

    private void onClose(byte[] payload) throws IOException {
        closeReceived = true;
        int answerCode = NORMAL_CLOSURE;
        if (payload.length == 1) {
            answerCode = PROTOCOL_ERROR;
        } else if (payload.length >= 2) {
            int code = ((payload[0] & 0xff) << 8) | (payload[1] & 0xff);
            closeCode = code;
            if (!validCloseCode(code) || !validUtf8(payload, 2, payload.length - 2)) {
                answerCode = PROTOCOL_ERROR;
            } else {
                answerCode = code;
            }
        }
        try {
            sendClose(answerCode, "");
        } finally {
            connection.close();
        }
    }

    /** Codes a peer may send (RFC 6455 section 7.4): 1000-1003, 1007-1011 and the registered/private ranges. */
    private static boolean validCloseCode(int code) {
        return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1011) || (code >= 3000 && code <= 4999);
    }

    private WebSocketMessage message(boolean text, byte[] payload) throws IOException {
        if (text && !validUtf8(payload, 0, payload.length)) {
            throw fail(INVALID_PAYLOAD, "text message is not valid UTF-8");
        }
        return new WebSocketMessage(text, payload);
    }

    private static boolean validUtf8(byte[] bytes, int offset, int length) {
        try {
            StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes, offset, length));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    /** Closes with {@code code} and returns the exception that tells the reader why. */
    private IOException fail(int code, String reason) {
        try {
            sendClose(code, reason);
        } catch (IOException ignored) {
            // Best effort: the peer may be gone.
        }
        try {
            connection.close();
        } catch (IOException ignored) {
            // Already closed.
        }
        return new WebSocketProtocolException(code, reason);
    }

    private void sendFrame(int opcode, byte[] payload) throws IOException {
        synchronized (sendLock) {
            if (closeSent) {
                throw new EOFException("the WebSocket is closing");
            }
            writeFrame(opcode, payload);
        }
    }

    /** One final, unmasked frame in one write, so that a frame is never split by another thread's frame. */
    private void writeFrame(int opcode, byte[] payload) throws IOException {
        int length = payload.length;
        int headerLength = length < 126 ? 2 : length < 65536 ? 4 : 10;
        byte[] frame = new byte[headerLength + length];
        frame[0] = (byte) (0x80 | opcode);
        if (length < 126) {
            frame[1] = (byte) length;
        } else if (length < 65536) {
            frame[1] = 126;
            frame[2] = (byte) (length >>> 8);
            frame[3] = (byte) length;
        } else {
            frame[1] = 127;
            long longLength = length;
            for (int i = 0; i < 8; i++) {
                frame[2 + i] = (byte) (longLength >>> (56 - 8 * i));
            }
        }
        System.arraycopy(payload, 0, frame, headerLength, length);
        output.write(frame);
        output.flush();
    }

    /** A broken protocol rule; the connection was closed with {@link #code()}. */
    public static final class WebSocketProtocolException extends IOException {
        private final int code;

        WebSocketProtocolException(int code, String message) {
            super(message);
            this.code = code;
        }

        public int code() {
            return code;
        }
    }
}
