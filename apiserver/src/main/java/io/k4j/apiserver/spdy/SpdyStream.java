package io.k4j.apiserver.spdy;

import io.k4j.apiserver.stream.BulkOutputStream;
import io.k4j.apiserver.stream.ChunkInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One stream of a {@link SpdyConnection}: what the peer sends arrives on {@link #input()} (which ends when the peer
 * half-closes the stream, resets it, or the connection ends); {@link #output()} sends data frames and its
 * {@code close()} half-closes our side with an empty FIN frame.
 *
 * <p>Thread-safe: one thread reads the input, writes may come from any thread.
 */
public final class SpdyStream {
    /** Data frames waiting for the reader before the connection's reader waits for room (spdystream waits at once). */
    private static final int QUEUED_FRAMES = 64;
    /** Larger writes are split, so one stream cannot hold the connection for long. */
    private static final int MAX_DATA_FRAME = 32 * 1024;

    private final SpdyConnection connection;
    private final int id;
    private final Map<String, List<String>> headers;
    private final CountDownLatch replied = new CountDownLatch(1);
    private final AtomicBoolean remoteEnded = new AtomicBoolean();
    private final AtomicBoolean localEnded = new AtomicBoolean();
    private volatile boolean reset;
    private volatile boolean accepted;
    private final ChunkInputStream input;
    private final Output output = new Output();

    SpdyStream(SpdyConnection connection, int id, Map<String, List<String>> headers) {
        this.connection = connection;
        this.id = id;
        this.headers = Map.copyOf(headers);
        this.input = new ChunkInputStream(QUEUED_FRAMES, "SPDY stream " + id);
    }

    public int id() {
        return id;
    }

    /** The headers the stream was opened with. */
    public Map<String, List<String>> headers() {
        return headers;
    }

    /** The first value of a header ({@code name} in lower case), or null. */
    public String header(String name) {
        List<String> values = headers.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    public InputStream input() {
        return input;
    }

    public OutputStream output() {
        return output;
    }

    /** Accepts a stream the peer opened; only then does the peer's data count (spdystream drops data before it). */
    public void reply() throws IOException {
        connection.send(new SpdyFrame.SynReply(id, 0, Map.of()));
    }

    /**
     * Waits for the peer to accept a stream we opened; whether it did within {@code timeout} (false if it reset the
     * stream or the connection ended first; a stream accepted and then ended still counts as accepted).
     */
    public boolean awaitReply(Duration timeout) throws InterruptedException {
        return replied.await(timeout.toNanos(), TimeUnit.NANOSECONDS) && accepted;
    }

    /** Ends the stream abnormally in both directions. */
    public void reset(int status) throws IOException {
        if (!reset) {
            reset = true;
            localEnded.set(true);
            remoteEnd();
            connection.send(new SpdyFrame.RstStream(id, status));
        }
    }

    /** Whether the peer ended its side (FIN or reset). */
    public boolean remoteClosed() {
        return remoteEnded.get();
    }

    void onReply() {
        accepted = true;
        replied.countDown();
    }

    void onData(byte[] data, boolean fin) throws InterruptedException {
        if (!remoteEnded.get()) {
            input.offer(data);
        }
        if (fin) {
            remoteEnd();
        }
    }

    void onReset() {
        reset = true;
        localEnded.set(true);
        replied.countDown();
        remoteEnd();
    }

    /** The peer's side ended; the end marker never waits for room, and what was received before it stays readable. */
    void remoteEnd() {
        if (remoteEnded.compareAndSet(false, true)) {
            input.end();
        }
    }

    private final class Output extends BulkOutputStream {
        @Override
        public void write(byte[] buffer, int offset, int length) throws IOException {
            if (localEnded.get()) {
                throw new IOException("SPDY stream " + id + " is closed for writing");
            }
            for (int start = offset; start < offset + length; start += MAX_DATA_FRAME) {
                int end = Math.min(offset + length, start + MAX_DATA_FRAME);
                connection.send(new SpdyFrame.Data(id, false, Arrays.copyOfRange(buffer, start, end)));
            }
        }

        @Override
        public void close() throws IOException {
            if (localEnded.compareAndSet(false, true)) {
                connection.send(new SpdyFrame.Data(id, true, new byte[0]));
            }
        }
    }
}
