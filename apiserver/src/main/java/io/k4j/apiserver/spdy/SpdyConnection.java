package io.k4j.apiserver.spdy;

import static java.util.Objects.requireNonNull;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A SPDY/3.1 session over an upgraded HTTP connection, as upstream's {@code httpstream/spdy} uses it for exec, attach
 * and port-forward: streams opened by either side, each with headers, data and half-close; pings answered; GOAWAY
 * ends the session. Flow control is not done, like spdystream (which ignores WINDOW_UPDATE); a slow reader of one
 * stream holds up the connection's reader and so, through TCP, the peer.
 *
 * <p>Thread-safe: frames are written one at a time; one internal thread reads.
 */
public final class SpdyConnection implements Closeable {
    /** Which side opened the connection: clients use odd stream and ping ids, servers even ones. */
    public enum Role {
        CLIENT,
        SERVER
    }

    private static final Logger LOG = LoggerFactory.getLogger(SpdyConnection.class);

    private final SpdyFramer framer;
    private final Closeable transport;
    private final Role role;
    private final Consumer<SpdyStream> incoming;
    private final Map<Integer, SpdyStream> streams = new ConcurrentHashMap<>();
    private final Object writeLock = new Object();
    private final CountDownLatch closed = new CountDownLatch(1);
    private int nextStreamId;
    private volatile boolean goneAway;
    private volatile boolean writeFailed;

    /**
     * @param incoming called on the reader thread for each stream the peer opens; it must not block (typically it
     *     hands the stream to another thread), and it decides whether to {@link SpdyStream#reply()} or reset it
     */
    public SpdyConnection(InputStream input, OutputStream output, Closeable transport, Role role, Consumer<SpdyStream> incoming) {
        this.framer = new SpdyFramer(requireNonNull(input, "input is null"), requireNonNull(output, "output is null"));
        this.transport = requireNonNull(transport, "transport is null");
        this.role = requireNonNull(role, "role is null");
        this.incoming = requireNonNull(incoming, "incoming is null");
        this.nextStreamId = role == Role.CLIENT ? 1 : 2;
    }

    /** Starts reading frames. */
    public SpdyConnection start(String threadName) {
        Thread.ofVirtual().name(threadName).start(this::readFrames);
        return this;
    }

    /** Opens a stream with {@code headers}; wait for {@link SpdyStream#awaitReply} before sending data on it. */
    public SpdyStream openStream(Map<String, List<String>> headers) throws IOException {
        synchronized (writeLock) {
            if (goneAway) {
                throw new IOException("the SPDY connection is closing");
            }
            int id = nextStreamId;
            nextStreamId += 2;
            SpdyStream stream = new SpdyStream(this, id, headers);
            streams.put(id, stream);
            send(new SpdyFrame.SynStream(id, 0, 0, 0, headers));
            return stream;
        }
    }

    void send(SpdyFrame frame) throws IOException {
        synchronized (writeLock) {
            if (writeFailed) {
                throw new IOException("the SPDY connection is closed");
            }
            try {
                framer.write(frame);
            } catch (IOException e) {
                writeFailed = true;
                throw e;
            }
        }
    }

    /** Waits until the connection ended (the peer closed it, or {@link #close()}); whether it did within {@code timeout}. */
    public boolean awaitClosed(Duration timeout) throws InterruptedException {
        return closed.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Says GOAWAY (best effort) and closes the transport; every stream's input ends. */
    @Override
    public void close() throws IOException {
        if (!goneAway) {
            goneAway = true;
            try {
                send(new SpdyFrame.GoAway(0, 0));
            } catch (IOException ignored) {
                // The peer is gone already.
            }
        }
        transport.close();
    }

    private void readFrames() {
        try {
            while (true) {
                Optional<SpdyFrame> next = framer.read();
                if (next.isEmpty()) {
                    break;
                }
                dispatch(next.get());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            LOG.debug("SPDY connection ended: {}", e.toString());
        } finally {
            streams.values().forEach(SpdyStream::onReset);
            streams.clear();
            try {
                transport.close();
            } catch (IOException ignored) {
                // Closing is all that is left to do.
            }
            synchronized (writeLock) {
                writeFailed = true;
                framer.release();
            }
            closed.countDown();
        }
    }

    private void dispatch(SpdyFrame frame) throws IOException, InterruptedException {
        switch (frame) {
            case SpdyFrame.Data data -> {
                SpdyStream stream = streams.get(data.streamId());
                if (stream != null) {
                    stream.onData(data.payload(), data.fin());
                }
            }
            case SpdyFrame.SynStream syn -> {
                boolean fromPeer = (syn.streamId() % 2 == 1) == (role == Role.SERVER);
                if (!fromPeer || goneAway || streams.containsKey(syn.streamId())) {
                    send(new SpdyFrame.RstStream(syn.streamId(), SpdyFrame.PROTOCOL_ERROR));
                    return;
                }
                SpdyStream stream = new SpdyStream(this, syn.streamId(), syn.headers());
                streams.put(syn.streamId(), stream);
                if ((syn.flags() & SpdyFrame.FLAG_FIN) != 0) {
                    stream.remoteEnd();
                }
                incoming.accept(stream);
            }
            case SpdyFrame.SynReply reply -> {
                SpdyStream stream = streams.get(reply.streamId());
                if (stream != null) {
                    stream.onReply();
                    if ((reply.flags() & SpdyFrame.FLAG_FIN) != 0) {
                        stream.remoteEnd();
                    }
                }
            }
            case SpdyFrame.Headers headers -> {
                SpdyStream stream = streams.get(headers.streamId());
                if (stream != null && (headers.flags() & SpdyFrame.FLAG_FIN) != 0) {
                    stream.remoteEnd();
                }
            }
            case SpdyFrame.RstStream reset -> {
                SpdyStream stream = streams.remove(reset.streamId());
                if (stream != null) {
                    stream.onReset();
                }
            }
            case SpdyFrame.Ping ping -> {
                boolean ours = (ping.id() % 2 == 1) == (role == Role.CLIENT);
                if (!ours) {
                    send(ping);
                }
            }
            case SpdyFrame.GoAway goAway -> goneAway = true;
            case SpdyFrame.Other other -> {
                // SETTINGS, WINDOW_UPDATE: nothing to do without flow control.
            }
        }
    }
}
