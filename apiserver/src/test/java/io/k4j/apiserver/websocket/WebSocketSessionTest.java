package io.k4j.apiserver.websocket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WebSocketSessionTest {
    /** What a client puts on the wire: masked frames. */
    private final ByteArrayOutputStream client = new ByteArrayOutputStream();
    /** What the server sends back. */
    private final ByteArrayOutputStream server = new ByteArrayOutputStream();
    private boolean connectionClosed;

    private void clientFrame(boolean fin, int opcode, byte[] payload) {
        clientFrame(fin, opcode, payload, true, 0);
    }

    private void clientFrame(boolean fin, int opcode, byte[] payload, boolean masked, int reservedBits) {
        client.write((fin ? 0x80 : 0) | reservedBits | opcode);
        int maskBit = masked ? 0x80 : 0;
        if (payload.length < 126) {
            client.write(maskBit | payload.length);
        } else if (payload.length < 65536) {
            client.write(maskBit | 126);
            client.write(payload.length >>> 8);
            client.write(payload.length);
        } else {
            client.write(maskBit | 127);
            client.writeBytes(ByteBuffer.allocate(8).putLong(payload.length).array());
        }
        byte[] mask = {0x37, (byte) 0xfa, 0x21, 0x3d};
        if (masked) {
            client.writeBytes(mask);
        }
        for (int i = 0; i < payload.length; i++) {
            client.write(masked ? payload[i] ^ mask[i & 3] : payload[i]);
        }
    }

    private WebSocketSession session(int maxMessageBytes) {
        return new WebSocketSession(new ByteArrayInputStream(client.toByteArray()), server, () -> connectionClosed = true, "", maxMessageBytes);
    }

    private record ServerFrame(int opcode, boolean fin, byte[] payload) {}

    private List<ServerFrame> serverFrames() throws IOException {
        List<ServerFrame> frames = new ArrayList<>();
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(server.toByteArray()));
        int first;
        while ((first = in.read()) >= 0) {
            int second = in.readUnsignedByte();
            assertThat(second & 0x80).as("server frames are never masked").isZero();
            long length = second & 0x7f;
            if (length == 126) {
                length = in.readUnsignedShort();
            } else if (length == 127) {
                length = in.readLong();
            }
            byte[] payload = new byte[(int) length];
            in.readFully(payload);
            frames.add(new ServerFrame(first & 0x0f, (first & 0x80) != 0, payload));
        }
        return frames;
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static int closeCode(ServerFrame frame) {
        assertThat(frame.opcode()).isEqualTo(0x8);
        return ((frame.payload()[0] & 0xff) << 8) | (frame.payload()[1] & 0xff);
    }

    @Test
    void receivesMaskedTextAndBinaryMessagesOfEveryLengthEncoding() throws Exception {
        byte[] medium = new byte[300];
        byte[] large = new byte[70_000];
        large[69_999] = 42;
        clientFrame(true, 0x1, utf8("héllo"));
        clientFrame(true, 0x2, medium);
        clientFrame(true, 0x2, large);
        WebSocketSession session = session(WebSocketSession.DEFAULT_MAX_MESSAGE_BYTES);

        assertThat(session.receive()).get().satisfies(message -> {
            assertThat(message.text()).isTrue();
            assertThat(message.asText()).isEqualTo("héllo");
        });
        assertThat(session.receive().orElseThrow().payload()).hasSize(300);
        assertThat(session.receive().orElseThrow().payload()).hasSize(70_000).endsWith(42);
        assertThat(session.receive()).isEmpty();
    }

    @Test
    void joinsFragmentsAndAnswersAPingBetweenThem() throws Exception {
        clientFrame(false, 0x1, utf8("one "));
        clientFrame(true, 0x9, utf8("are you there"));
        clientFrame(false, 0x0, utf8("two "));
        clientFrame(true, 0x0, utf8("three"));
        WebSocketSession session = session(1024);

        assertThat(session.receive().orElseThrow().asText()).isEqualTo("one two three");
        List<ServerFrame> frames = serverFrames();
        assertThat(frames).hasSize(1);
        assertThat(frames.get(0).opcode()).isEqualTo(0xa);
        assertThat(new String(frames.get(0).payload(), StandardCharsets.UTF_8)).isEqualTo("are you there");
    }

    @Test
    void answersACloseWithTheSameCodeAndClosesTheConnection() throws Exception {
        clientFrame(true, 0x8, ByteBuffer.allocate(6).putShort((short) 1001).put(utf8("bye!")).array());
        WebSocketSession session = session(1024);

        assertThat(session.receive()).isEmpty();

        assertThat(session.closeReceived()).isTrue();
        assertThat(session.closeCode()).isEqualTo(1001);
        assertThat(closeCode(serverFrames().get(0))).isEqualTo(1001);
        assertThat(connectionClosed).isTrue();
        assertThatThrownBy(() -> session.sendText("late")).isInstanceOf(IOException.class);
    }

    @Test
    void sendsUnmaskedFinalFramesWithTheRightLengthEncoding() throws Exception {
        WebSocketSession session = session(1024);

        session.sendText("hi");
        session.sendBinary(new byte[200]);
        session.sendBinary(new byte[66_000]);
        session.close();

        List<ServerFrame> frames = serverFrames();
        assertThat(frames).extracting(ServerFrame::opcode).containsExactly(0x1, 0x2, 0x2, 0x8);
        assertThat(frames).allMatch(ServerFrame::fin);
        assertThat(frames.get(0).payload()).isEqualTo(utf8("hi"));
        assertThat(frames.get(1).payload()).hasSize(200);
        assertThat(frames.get(2).payload()).hasSize(66_000);
        assertThat(closeCode(frames.get(3))).isEqualTo(1000);
        assertThat(connectionClosed).isTrue();
    }

    @Test
    void unmaskedClientFramesAreAProtocolError() throws Exception {
        clientFrame(true, 0x1, utf8("plain"), false, 0);

        assertProtocolFailure(1002);
    }

    @Test
    void reservedBitsWithoutAnExtensionAreAProtocolError() throws Exception {
        clientFrame(true, 0x1, utf8("compressed?"), true, 0x40);

        assertProtocolFailure(1002);
    }

    @Test
    void fragmentedOrOversizedControlFramesAreAProtocolError() throws Exception {
        clientFrame(false, 0x9, utf8("ping"));

        assertProtocolFailure(1002);
    }

    @Test
    void aContinuationWithoutAMessageIsAProtocolError() throws Exception {
        clientFrame(true, 0x0, utf8("orphan"));

        assertProtocolFailure(1002);
    }

    @Test
    void aNewMessageInsideAFragmentedOneIsAProtocolError() throws Exception {
        clientFrame(false, 0x1, utf8("first"));
        clientFrame(true, 0x2, utf8("second"));

        assertProtocolFailure(1002);
    }

    @Test
    void unknownOpcodesAreAProtocolError() throws Exception {
        clientFrame(true, 0x3, utf8("?"));

        assertProtocolFailure(1002);
    }

    @Test
    void invalidUtf8TextIsRejectedWith1007() throws Exception {
        clientFrame(true, 0x1, new byte[] {(byte) 0xc3, 0x28});

        assertProtocolFailure(1007);
    }

    @Test
    void messagesOverTheLimitAreRejectedWith1009EvenWhenFragmented() throws Exception {
        clientFrame(false, 0x2, new byte[60]);
        clientFrame(true, 0x0, new byte[60]);

        assertProtocolFailure(1009, 100);
    }

    @Test
    void anInvalidCloseCodeIsAnsweredWithAProtocolError() throws Exception {
        clientFrame(true, 0x8, ByteBuffer.allocate(2).putShort((short) 1005).array());
        WebSocketSession session = session(1024);

        assertThat(session.receive()).isEmpty();

        assertThat(closeCode(serverFrames().get(0))).isEqualTo(1002);
    }

    @Test
    void anEmptyCloseIsAnsweredNormally() throws Exception {
        clientFrame(true, 0x8, new byte[0]);
        WebSocketSession session = session(1024);

        assertThat(session.receive()).isEmpty();

        assertThat(session.closeCode()).isEqualTo(WebSocketSession.NO_STATUS_RECEIVED);
        assertThat(closeCode(serverFrames().get(0))).isEqualTo(1000);
    }

    private void assertProtocolFailure(int expectedCode) throws Exception {
        assertProtocolFailure(expectedCode, 1024);
    }

    private void assertProtocolFailure(int expectedCode, int maxMessageBytes) throws Exception {
        WebSocketSession session = session(maxMessageBytes);

        assertThatThrownBy(session::receive)
                .isInstanceOfSatisfying(WebSocketSession.WebSocketProtocolException.class, e -> assertThat(e.code()).isEqualTo(expectedCode));

        List<ServerFrame> frames = serverFrames();
        assertThat(closeCode(frames.get(frames.size() - 1))).isEqualTo(expectedCode);
        assertThat(connectionClosed).isTrue();
    }
}
