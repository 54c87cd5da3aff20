package io.k4j.apiserver.websocket;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The channel framing over a real loopback TCP connection, with a hand-written client that masks its frames. */
class ChannelConnectionTest {
    private Socket clientSocket;
    private Socket serverSocket;

    private ChannelConnection connect(ChannelProtocol protocol, int channels, Set<Integer> readable) throws IOException {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            clientSocket = new Socket(InetAddress.getLoopbackAddress(), listener.getLocalPort());
            serverSocket = listener.accept();
        }
        WebSocketSession session = new WebSocketSession(serverSocket.getInputStream(), serverSocket.getOutputStream(), serverSocket,
                protocol.protocolName(), 1024 * 1024);
        ChannelConnection connection = new ChannelConnection(session, protocol, channels, readable);
        connection.start();
        return connection;
    }

    @AfterEach
    void closeSockets() throws IOException {
        if (clientSocket != null) {
            clientSocket.close();
            serverSocket.close();
        }
    }

    private void send(int opcode, byte[] payload) throws IOException {
        OutputStream out = clientSocket.getOutputStream();
        byte[] mask = {1, 2, 3, 4};
        out.write(0x80 | opcode);
        if (payload.length < 126) {
            out.write(0x80 | payload.length);
        } else {
            out.write(0x80 | 126);
            out.write(payload.length >>> 8);
            out.write(payload.length);
        }
        out.write(mask);
        byte[] masked = payload.clone();
        for (int i = 0; i < masked.length; i++) {
            masked[i] ^= mask[i & 3];
        }
        out.write(masked);
        out.flush();
    }

    private record Frame(int opcode, byte[] payload) {
        String text() {
            return new String(payload, StandardCharsets.UTF_8);
        }
    }

    private Frame receive() throws IOException {
        clientSocket.setSoTimeout(10_000);
        DataInputStream in = new DataInputStream(clientSocket.getInputStream());
        int first = in.readUnsignedByte();
        int length = in.readUnsignedByte() & 0x7f;
        if (length == 126) {
            length = in.readUnsignedShort();
        }
        byte[] payload = new byte[length];
        in.readFully(payload);
        return new Frame(first & 0x0f, payload);
    }

    private static byte[] bytes(int channel, String text) {
        byte[] data = text.getBytes(StandardCharsets.UTF_8);
        byte[] message = new byte[data.length + 1];
        message[0] = (byte) channel;
        System.arraycopy(data, 0, message, 1, data.length);
        return message;
    }

    private static String read(InputStream in, int length) throws IOException {
        return new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }

    @Test
    void binaryChannelsCarryAChannelBytePrefix() throws Exception {
        ChannelConnection connection = connect(ChannelProtocol.V4, 4, Set.of(ChannelConnection.STDIN));

        send(0x2, bytes(ChannelConnection.STDIN, "echo hi\n"));
        connection.output(ChannelConnection.STDOUT).write("hi\n".getBytes(StandardCharsets.UTF_8));
        connection.output(ChannelConnection.STDERR).write("warning".getBytes(StandardCharsets.UTF_8));

        assertThat(read(connection.input(ChannelConnection.STDIN), 8)).isEqualTo("echo hi\n");
        Frame stdout = receive();
        assertThat(stdout.opcode()).isEqualTo(0x2);
        assertThat(stdout.payload()).isEqualTo(bytes(ChannelConnection.STDOUT, "hi\n"));
        assertThat(receive().payload()).isEqualTo(bytes(ChannelConnection.STDERR, "warning"));
    }

    @Test
    void base64ChannelsUseADigitAndBase64Text() throws Exception {
        ChannelConnection connection = connect(ChannelProtocol.V4_BASE64, 4, Set.of(ChannelConnection.STDIN));

        send(0x1, ("0" + Base64.getEncoder().encodeToString("ls\n".getBytes(StandardCharsets.UTF_8))).getBytes(StandardCharsets.US_ASCII));
        connection.output(ChannelConnection.STDOUT).write(new byte[] {0, (byte) 0xff, 10});

        assertThat(read(connection.input(ChannelConnection.STDIN), 3)).isEqualTo("ls\n");
        Frame stdout = receive();
        assertThat(stdout.opcode()).isEqualTo(0x1);
        assertThat(stdout.text()).isEqualTo("1" + Base64.getEncoder().encodeToString(new byte[] {0, (byte) 0xff, 10}));
    }

    @Test
    void theV5CloseSignalHalfClosesAChannelInBothDirections() throws Exception {
        ChannelConnection connection = connect(ChannelProtocol.V5, 5, Set.of(ChannelConnection.STDIN, ChannelConnection.RESIZE));
        InputStream stdin = connection.input(ChannelConnection.STDIN);

        send(0x2, bytes(ChannelConnection.STDIN, "last line\n"));
        send(0x2, new byte[] {(byte) ChannelConnection.CLOSE_SIGNAL, ChannelConnection.STDIN});

        assertThat(new String(stdin.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("last line\n");
        assertThat(stdin.read()).isEqualTo(-1);

        OutputStream stdout = connection.output(ChannelConnection.STDOUT);
        stdout.write("done".getBytes(StandardCharsets.UTF_8));
        stdout.close();
        assertThat(receive().payload()).isEqualTo(bytes(ChannelConnection.STDOUT, "done"));
        assertThat(receive().payload()).containsExactly(ChannelConnection.CLOSE_SIGNAL, ChannelConnection.STDOUT);
        assertThat(connection.awaitClientClosed(Duration.ZERO)).isFalse();
    }

    @Test
    void olderProtocolsIgnoreTheCloseSignal() throws Exception {
        ChannelConnection connection = connect(ChannelProtocol.V4, 4, Set.of(ChannelConnection.STDIN));

        connection.output(ChannelConnection.STDOUT).close();
        connection.output(ChannelConnection.ERROR).write("{}".getBytes(StandardCharsets.UTF_8));

        assertThat(receive().payload()).isEqualTo(bytes(ChannelConnection.ERROR, "{}"));
    }

    @Test
    void resizeMessagesBecomeTerminalSizes() throws Exception {
        ChannelConnection connection = connect(ChannelProtocol.V5, 5, Set.of(ChannelConnection.STDIN, ChannelConnection.RESIZE));

        send(0x2, bytes(ChannelConnection.RESIZE, "{\"Width\":120,\"Height\":40}"));
        send(0x2, bytes(ChannelConnection.RESIZE, "{\"Width\":80,\"Height\":24}{\"Width\":100,\"Height\":30}"));

        assertThat(connection.nextTerminalSize(Duration.ofSeconds(10))).contains(new ChannelConnection.TerminalSize(120, 40));
        assertThat(connection.nextTerminalSize(Duration.ofSeconds(10))).contains(new ChannelConnection.TerminalSize(80, 24));
        assertThat(connection.nextTerminalSize(Duration.ofSeconds(10))).contains(new ChannelConnection.TerminalSize(100, 30));
    }

    @Test
    void dataForUnknownOrWriteOnlyChannelsIsDroppedAndTheClientsCloseEndsEveryInput() throws Exception {
        ChannelConnection connection = connect(ChannelProtocol.V4, 3, Set.of(ChannelConnection.STDIN));

        send(0x2, bytes(ChannelConnection.STDOUT, "not for the server"));
        send(0x2, bytes(9, "no such channel"));
        send(0x2, bytes(ChannelConnection.STDIN, "kept"));
        send(0x8, new byte[] {0x03, (byte) 0xe8});

        assertThat(new String(connection.input(ChannelConnection.STDIN).readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("kept");
        assertThat(connection.awaitClientClosed(Duration.ofSeconds(10))).isTrue();
        Frame close = receive();
        assertThat(close.opcode()).isEqualTo(0x8);
        assertThat(Arrays.copyOf(close.payload(), 2)).containsExactly(0x03, 0xe8);
        assertThat(connection.nextTerminalSize(Duration.ZERO)).isEmpty();
    }

    @Test
    void choosesTheClientsFirstSupportedProtocol() {
        assertThat(WebSockets.chooseProtocol(java.util.List.of("v5.channel.k8s.io", "v4.channel.k8s.io"), ChannelProtocol.names()))
                .isEqualTo("v5.channel.k8s.io");
        assertThat(WebSockets.chooseProtocol(java.util.List.of("unknown", "v4.base64.channel.k8s.io"), ChannelProtocol.names()))
                .isEqualTo("v4.base64.channel.k8s.io");
        assertThat(WebSockets.chooseProtocol(java.util.List.of(), ChannelProtocol.names())).isEmpty();
        assertThat(WebSockets.acceptKey("dGhlIHNhbXBsZSBub25jZQ==")).isEqualTo("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    }
}
