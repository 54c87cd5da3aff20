package io.k4j.apiserver.websocket;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.endpoints.HttpExchange;
import io.k4j.apiserver.stream.BulkOutputStream;
import io.k4j.apiserver.stream.ChunkInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A WebSocket carrying numbered channels in one of the {@link ChannelProtocol}s: the server end of {@code pods/exec},
 * {@code pods/attach} and {@code pods/portforward} streams. Each channel the client may write to is an
 * {@link InputStream} here, each channel the server writes is an {@link OutputStream}; the resize channel is decoded
 * into {@link TerminalSize}s. A reader thread takes the client's messages apart; a slow consumer of one channel holds
 * up the reading (and so, through TCP, the client) rather than buffering without bound.
 *
 * <p>Thread-safe: channels may be written from different threads; each input is for one reading thread.
 */
public final class ChannelConnection implements Closeable {
    public static final int STDIN = 0;
    public static final int STDOUT = 1;
    public static final int STDERR = 2;
    public static final int ERROR = 3;
    public static final int RESIZE = 4;
    /** The first byte of a v5 close signal; the second names the channel that is closed. */
    public static final int CLOSE_SIGNAL = 255;

    private static final Logger LOG = LoggerFactory.getLogger(ChannelConnection.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int QUEUED_MESSAGES = 16;

    /** A terminal size sent on the resize channel, as upstream's {@code {"Width":…,"Height":…}}. */
    public record TerminalSize(int width, int height) {}

    private final WebSocketSession session;
    private final ChannelProtocol protocol;
    private final ChunkInputStream[] inputs;
    private final BlockingQueue<Optional<TerminalSize>> terminalSizes = new ArrayBlockingQueue<>(QUEUED_MESSAGES);
    private final CountDownLatch readerDone = new CountDownLatch(1);
    private volatile Thread reader;

    /**
     * @param channels how many channels the stream has (e.g. 5 for exec with a terminal, 2 per port for port-forward)
     * @param readable the channels the client may send on; data for any other channel is ignored, as upstream does
     */
    public ChannelConnection(WebSocketSession session, ChannelProtocol protocol, int channels, Set<Integer> readable) {
        this.session = requireNonNull(session, "session is null");
        this.protocol = requireNonNull(protocol, "protocol is null");
        if (channels <= 0 || channels >= CLOSE_SIGNAL) {
            throw new IllegalArgumentException("channels must be between 1 and 254");
        }
        this.inputs = new ChunkInputStream[channels];
        for (int channel : readable) {
            if (channel < 0 || channel >= channels) {
                throw new IllegalArgumentException("readable channel " + channel + " out of range");
            }
            if (channel != RESIZE || channels <= RESIZE) {
                inputs[channel] = new ChunkInputStream(QUEUED_MESSAGES, "WebSocket channel " + channel);
            }
        }
        if (!readable.contains(RESIZE) || channels <= RESIZE) {
            terminalSizes.offer(Optional.empty());
        }
    }

    /**
     * Accepts a WebSocket upgrade for a channel stream: chooses the first protocol the client offers among
     * {@code supported} (as upstream, the client's order wins) and starts reading.
     *
     * @throws StatusException 400 when the request is no WebSocket handshake or offers no supported protocol
     */
    public static ChannelConnection accept(HttpExchange exchange, List<ChannelProtocol> supported, int channels, Set<Integer> readable)
            throws IOException {
        String name = WebSockets.chooseProtocol(WebSockets.offeredProtocols(exchange), supported.stream().map(ChannelProtocol::protocolName).toList());
        ChannelProtocol protocol = ChannelProtocol.of(name).orElseThrow();
        ChannelConnection connection = new ChannelConnection(
                WebSockets.accept(exchange, name, WebSocketSession.DEFAULT_MAX_MESSAGE_BYTES), protocol, channels, readable);
        connection.start();
        return connection;
    }

    public ChannelProtocol protocol() {
        return protocol;
    }

    /** Starts the thread that reads the client's messages. */
    public void start() {
        reader = Thread.ofVirtual().name("websocket-channels").start(this::readMessages);
    }

    /** What the client sends on {@code channel}; ends when the client half-closes it (v5) or the connection ends. */
    public InputStream input(int channel) {
        if (channel < 0 || channel >= inputs.length || inputs[channel] == null) {
            throw new IllegalArgumentException("channel " + channel + " is not readable");
        }
        return inputs[channel];
    }

    /**
     * Writes to {@code channel}; each write is one message. Closing it half-closes the channel with the v5 close
     * signal (and does nothing in older protocols, which have no such signal).
     */
    public OutputStream output(int channel) {
        if (channel < 0 || channel >= inputs.length) {
            throw new IllegalArgumentException("channel " + channel + " out of range");
        }
        return new ChannelOutput(channel);
    }

    /**
     * The next terminal size from the resize channel, waiting at most {@code timeout}; empty when none came in time,
     * when the stream has no resize channel, or once the connection ended.
     */
    public Optional<TerminalSize> nextTerminalSize(Duration timeout) throws InterruptedException {
        Optional<TerminalSize> size = terminalSizes.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (size == null) {
            return Optional.empty();
        }
        if (size.isEmpty()) {
            terminalSizes.offer(Optional.empty());
        }
        return size;
    }

    /** Waits until the client closed the connection (or it broke), at most {@code timeout}; whether it did. */
    public boolean awaitClientClosed(Duration timeout) throws InterruptedException {
        return readerDone.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Sends one message on {@code channel}. */
    public void send(int channel, byte[] data) throws IOException {
        if (protocol.binary()) {
            byte[] message = new byte[data.length + 1];
            message[0] = (byte) channel;
            System.arraycopy(data, 0, message, 1, data.length);
            session.sendBinary(message);
        } else {
            session.sendText((char) ('0' + channel) + Base64.getEncoder().encodeToString(data));
        }
    }

    /** Ends the stream: a normal WebSocket close, then the connection; every input ends. */
    @Override
    public void close() throws IOException {
        try {
            session.close();
        } finally {
            endInputs();
            Thread running = reader;
            if (running != null) {
                // It may wait for room in a channel nobody reads any more.
                running.interrupt();
            }
        }
    }

    private void readMessages() {
        try {
            while (true) {
                Optional<WebSocketMessage> message = session.receive();
                if (message.isEmpty()) {
                    break;
                }
                dispatch(message.get());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            LOG.debug("channel stream ended: {}", e.toString());
        } finally {
            endInputs();
            readerDone.countDown();
        }
    }

    private void dispatch(WebSocketMessage message) throws InterruptedException, IOException {
        byte[] payload = message.payload();
        if (payload.length == 0) {
            return;
        }
        int channel;
        byte[] data;
        if (protocol.binary()) {
            channel = payload[0] & 0xff;
            data = Arrays.copyOfRange(payload, 1, payload.length);
        } else {
            channel = payload[0] - '0';
            try {
                data = Base64.getDecoder().decode(Arrays.copyOfRange(payload, 1, payload.length));
            } catch (IllegalArgumentException e) {
                LOG.debug("ignoring a message with invalid base64 on channel {}", channel);
                return;
            }
        }
        if (channel == CLOSE_SIGNAL && protocol.closeSignal()) {
            if (data.length == 1 && (data[0] & 0xff) < inputs.length && inputs[data[0] & 0xff] != null) {
                inputs[data[0] & 0xff].end();
            }
            return;
        }
        if (channel < 0 || channel >= inputs.length) {
            // As upstream: a message for a channel that does not exist is dropped.
            return;
        }
        if (channel == RESIZE) {
            onResize(data);
        } else if (inputs[channel] != null) {
            inputs[channel].offer(data);
        }
    }

    private void onResize(byte[] data) {
        try (MappingIterator<JsonNode> sizes = JSON.readerFor(JsonNode.class).readValues(data)) {
            while (sizes.hasNextValue()) {
                JsonNode size = sizes.nextValue();
                Optional<TerminalSize> terminalSize = Optional.of(new TerminalSize(size.path("Width").asInt(), size.path("Height").asInt()));
                // A handler that does not follow resizes must not stall the stream: the oldest size gives way.
                while (!terminalSizes.offer(terminalSize)) {
                    terminalSizes.poll();
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("ignoring an invalid terminal size: {}", new String(data, StandardCharsets.UTF_8));
        }
    }

    private void endInputs() {
        for (ChunkInputStream input : inputs) {
            if (input != null) {
                input.end();
            }
        }
        terminalSizes.clear();
        terminalSizes.offer(Optional.empty());
    }

    private final class ChannelOutput extends BulkOutputStream {
        private final int channel;
        private boolean closed;

        ChannelOutput(int channel) {
            this.channel = channel;
        }

        @Override
        public void write(byte[] buffer, int offset, int length) throws IOException {
            if (closed) {
                throw new IOException("channel " + channel + " is closed");
            }
            if (length > 0) {
                send(channel, Arrays.copyOfRange(buffer, offset, offset + length));
            }
        }

        @Override
        public void close() throws IOException {
            if (closed) {
                return;
            }
            closed = true;
            if (protocol.closeSignal()) {
                session.sendBinary(new byte[] {(byte) CLOSE_SIGNAL, (byte) channel});
            }
        }
    }
}
