package io.k4j.apiserver.endpoints;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * One HTTP request and its response, independent of the HTTP server, so the API logic can be exercised without
 * one. Not thread-safe: one request is handled by one thread.
 */
public interface HttpExchange {
    String method();

    /** The decoded request path. */
    String path();

    /** Query parameters, decoded. */
    Map<String, List<String>> query();

    /** Request headers with lower-case names. */
    Map<String, List<String>> headers();

    /** The first value of a request header ({@code name} in lower case), or null. */
    default String header(String name) {
        List<String> values = headers().get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    default String queryParameter(String name) {
        List<String> values = query().get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    /**
     * The request body, read whole.
     *
     * @throws io.k4j.api.errors.StatusException 413 when it is larger than the server's limit
     */
    byte[] body() throws IOException;

    /** Adds a response header; call before responding. */
    void addHeader(String name, String value);

    /** Sends a complete response. */
    void respond(int status, String contentType, byte[] body) throws IOException;

    /** Writes a response body of a length known beforehand. */
    @FunctionalInterface
    interface BodyWriter {
        void writeTo(OutputStream out) throws IOException;
    }

    /**
     * Sends a complete response of {@code length} bytes that {@code body} writes. This default collects them into one
     * array; an exchange over the network streams a large body through a small buffer instead: a fresh array of a large
     * LIST's size (20 MB for 10,000 pods) lands on heap memory not touched before, and on a virtual machine its page
     * faults cost more than the rest of the request.
     */
    default void respond(int status, String contentType, int length, BodyWriter body) throws IOException {
        respond(status, contentType, collect(length, body));
    }

    /** The {@code length} bytes {@code body} writes, in one array. */
    static byte[] collect(int length, BodyWriter body) throws IOException {
        byte[] bytes = new byte[length];
        OutputStream out = new OutputStream() {
            private int position;

            @Override
            public void write(int b) {
                bytes[position++] = (byte) b;
            }

            @Override
            public void write(byte[] source, int offset, int count) {
                System.arraycopy(source, offset, bytes, position, count);
                position += count;
            }
        };
        body.writeTo(out);
        return bytes;
    }

    /** Starts a streamed response (chunked); each {@code flush} sends what was written. */
    OutputStream startStream(int status, String contentType) throws IOException;

    /**
     * A streamed response that any thread may send to without waiting for the network: a watch then needs no thread
     * of its own woken for each event. One send at a time: the next only after the previous one's {@code done} ran.
     */
    interface NonBlockingStream {
        /**
         * Sends {@code bytes} (not modified afterwards) and runs {@code done} with null once they were written, or
         * with the failure; on the calling thread when they could be written at once.
         */
        void send(byte[] bytes, Consumer<Throwable> done);

        /** Runs {@code onFailure} once if the client resets or abandons the stream before the response ends. */
        void onClientGone(Consumer<Throwable> onFailure);
    }

    /**
     * Starts a streamed response as {@link #startStream} does, sent without blocking, or answers empty and starts
     * nothing when this exchange can only send with blocking writes. The response ends when the handling thread
     * returns, which must wait for the last send's {@code done} first.
     */
    default Optional<NonBlockingStream> startNonBlockingStream(int status, String contentType) throws IOException {
        return Optional.empty();
    }

    /** Whether a response was started (a later error can then no longer be sent as a Status). */
    boolean committed();

    /**
     * Answers {@code 101 Switching Protocols} with {@code headers} (e.g. {@code Upgrade}, {@code Connection},
     * {@code Sec-WebSocket-Accept}) and hands over the connection's bytes; the exchange has no HTTP response after this.
     * The handling thread keeps the connection until it closes it.
     *
     * @throws UnsupportedOperationException when this connection cannot switch protocols (only HTTP/1.1 can)
     */
    default UpgradedConnection switchProtocols(Map<String, String> headers) throws IOException {
        throw new UnsupportedOperationException("this connection cannot switch protocols");
    }
}
