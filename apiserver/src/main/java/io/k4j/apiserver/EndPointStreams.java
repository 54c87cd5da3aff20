package io.k4j.apiserver;

import io.k4j.apiserver.endpoints.UpgradedConnection;
import io.k4j.apiserver.stream.BulkInputStream;
import io.k4j.apiserver.stream.BulkOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.io.AbstractConnection;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.util.Blocker;

/**
 * The Jetty connection an upgraded HTTP/1.1 end point is handed to: instead of parsing a protocol itself it offers the
 * end point's bytes as blocking streams to the request's thread, which speaks the new protocol (WebSocket) over them.
 * Bytes the client sent right behind its upgrade request, which HTTP parsing had read already, come first. The
 * connector's idle timeout still applies and closes the end point, which ends a waiting read with an exception.
 *
 * <p>Thread-safe as {@link UpgradedConnection} requires: one reading thread; writes are serialised by the caller.
 */
final class EndPointStreams extends AbstractConnection implements Connection.UpgradeTo, UpgradedConnection {
    private final CompletableFuture<Void> opened = new CompletableFuture<>();
    private final Input input = new Input();
    private final Output output = new Output();
    private ByteBuffer prefilled = ByteBuffer.allocate(0);

    EndPointStreams(EndPoint endPoint, Executor executor) {
        super(endPoint, executor);
    }

    @Override
    public void onUpgradeTo(ByteBuffer buffer) {
        if (buffer != null && buffer.hasRemaining()) {
            ByteBuffer copy = ByteBuffer.allocate(buffer.remaining());
            copy.put(buffer).flip();
            prefilled = copy;
        }
    }

    @Override
    public void onOpen() {
        super.onOpen();
        opened.complete(null);
    }

    @Override
    public void onFillable() {
        // Never called: reads wait on the end point directly (see Input), not on this connection's fill interest.
    }

    void awaitOpen(Duration timeout) throws IOException {
        try {
            opened.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while switching protocols");
        } catch (ExecutionException | TimeoutException e) {
            getEndPoint().close();
            throw new IOException("the connection did not switch protocols", e);
        }
    }

    @Override
    public InputStream input() {
        return input;
    }

    @Override
    public OutputStream output() {
        return output;
    }

    @Override
    public void close() {
        getEndPoint().close();
    }

    private final class Input extends BulkInputStream {
        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            if (length == 0) {
                return 0;
            }
            if (prefilled.hasRemaining()) {
                int count = Math.min(length, prefilled.remaining());
                prefilled.get(buffer, offset, count);
                return count;
            }
            // Jetty fills a buffer from its limit up to its capacity: an empty slice over the caller's array.
            ByteBuffer target = ByteBuffer.wrap(buffer, offset, length).slice();
            target.limit(0);
            while (true) {
                int filled = getEndPoint().fill(target);
                if (filled != 0) {
                    return filled;
                }
                try (Blocker.Callback readable = Blocker.callback()) {
                    getEndPoint().fillInterested(readable);
                    readable.block();
                }
            }
        }
    }

    private final class Output extends BulkOutputStream {
        @Override
        public void write(byte[] buffer, int offset, int length) throws IOException {
            try (Blocker.Callback written = Blocker.callback()) {
                getEndPoint().write(written, ByteBuffer.wrap(buffer, offset, length));
                written.block();
            }
        }

        @Override
        public void close() {
            getEndPoint().close();
        }
    }
}
