package io.k4j.apiserver;

import static java.util.Objects.requireNonNull;

import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.endpoints.HttpExchange;
import io.k4j.apiserver.stream.BulkOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One request of a client in the server's own JVM (see {@link InProcessConnection}), answered to a {@link Receiver}
 * instead of a socket. The request is the one an HTTPS client would send (method, decoded path and query, headers,
 * body); the answer arrives as the status and headers, then the body in the pieces the handler wrote (a watch's
 * events one by one), then its end.
 *
 * <p>Not thread-safe, like any exchange, except {@link #cancel}, which the client may call from any thread.
 */
public final class InProcessExchange implements HttpExchange, RequestPipeline.StatusRecorder {
    /**
     * Where the answer goes. Called on the thread serving the request, in order: {@link #headers} once, {@link #data}
     * zero or more times, {@link #end} once. {@code data} may block to hold the server back (as a full socket would).
     */
    public interface Receiver {
        /** @param streamed whether the body comes in pieces as the handler writes them (a watch), not whole */
        void headers(int status, Map<String, List<String>> headers, boolean streamed);

        /**
         * A piece of the body. A whole body's array is the receiver's to keep; a streamed piece's array is the writer's,
         * so a receiver that keeps those bytes after returning copies them.
         *
         * @throws IOException when the client no longer wants the answer; the handler stops writing
         */
        void data(byte[] bytes, int offset, int length) throws IOException;

        /**
         * A streamed piece whose array nobody changes afterwards (see {@link BulkOutputStream#writeUnchanging}): the
         * receiver may keep it, and what it made of it, without copying.
         */
        default void unchangingData(byte[] bytes) throws IOException {
            data(bytes, 0, bytes.length);
        }

        void end();
    }

    private final String method;
    private final String path;
    private final Map<String, List<String>> query;
    private final Map<String, List<String>> headers;
    private final byte[] body;
    private final int maxBodyBytes;
    private final Receiver receiver;
    private final Map<String, List<String>> responseHeaders = new LinkedHashMap<>();
    private final Object lock = new Object();
    private int status = 200;
    private boolean committed;
    private boolean ended;
    private Thread streamingThread;
    private boolean cancelled;

    /**
     * @param path the decoded path
     * @param query the decoded query parameters; the exchange keeps the map
     * @param headers request headers with lower-case names; the exchange keeps the map
     */
    InProcessExchange(String method, String path, Map<String, List<String>> query, Map<String, List<String>> headers, byte[] body, int maxBodyBytes,
            Receiver receiver) {
        this.method = requireNonNull(method, "method is null");
        this.path = requireNonNull(path, "path is null");
        this.query = Collections.unmodifiableMap(query);
        this.headers = Collections.unmodifiableMap(headers);
        this.body = requireNonNull(body, "body is null");
        this.maxBodyBytes = maxBodyBytes;
        this.receiver = requireNonNull(receiver, "receiver is null");
    }

    @Override
    public String method() {
        return method;
    }

    @Override
    public String path() {
        return path;
    }

    @Override
    public Map<String, List<String>> query() {
        return query;
    }

    @Override
    public Map<String, List<String>> headers() {
        return headers;
    }

    @Override
    public byte[] body() {
        if (body.length > maxBodyBytes) {
            throw StatusException.requestEntityTooLarge(maxBodyBytes);
        }
        return body;
    }

    @Override
    public void addHeader(String name, String value) {
        responseHeaders.computeIfAbsent(name, key -> new ArrayList<>(1)).add(value);
    }

    @Override
    public void respond(int newStatus, String contentType, byte[] content) throws IOException {
        commit(newStatus, contentType);
        addHeader("Content-Length", Integer.toString(content.length));
        receiver.headers(newStatus, responseHeaders, false);
        if (!method.equals("HEAD") && content.length > 0) {
            receiver.data(content, 0, content.length);
        }
        end();
    }

    @Override
    public OutputStream startStream(int newStatus, String contentType) {
        commit(newStatus, contentType);
        synchronized (lock) {
            streamingThread = Thread.currentThread();
        }
        receiver.headers(newStatus, responseHeaders, true);
        return new BulkOutputStream() {
            @Override
            public void write(byte[] buffer, int offset, int length) throws IOException {
                requireOpen();
                receiver.data(buffer, offset, length);
            }

            @Override
            public void writeUnchanging(byte[] bytes) throws IOException {
                requireOpen();
                receiver.unchangingData(bytes);
            }

            private void requireOpen() throws IOException {
                synchronized (lock) {
                    if (cancelled) {
                        throw new IOException("the in-process client closed the stream");
                    }
                }
            }

            @Override
            public void close() {
                synchronized (lock) {
                    streamingThread = null;
                    if (cancelled) {
                        // The interrupt only meant to end the stream; the rest of the request must not see it.
                        Thread.interrupted();
                    }
                }
                end();
            }
        };
    }

    private void commit(int newStatus, String contentType) {
        if (committed) {
            throw new IllegalStateException("the response was already started");
        }
        committed = true;
        status = newStatus;
        responseHeaders.put("Content-Type", List.of(contentType));
    }

    @Override
    public boolean committed() {
        return committed;
    }

    @Override
    public int status() {
        return status;
    }

    /**
     * Ends the exchange from the client's side: a stream's next write fails, and a handler waiting for its next event
     * (a quiet watch) is interrupted so that it ends now. Any thread.
     */
    public void cancel() {
        synchronized (lock) {
            cancelled = true;
            // A client that closes from within its own message handling runs on the streaming thread: the next write
            // fails, and an interrupt would only surprise the client's code.
            if (streamingThread != null && streamingThread != Thread.currentThread()) {
                streamingThread.interrupt();
            }
        }
    }

    /** After the pipeline: answers 200 with no body if the handler sent nothing (as Jetty would), and ends the answer. */
    void finish() {
        if (!committed) {
            committed = true;
            receiver.headers(status, responseHeaders, false);
        }
        end();
    }

    private void end() {
        if (!ended) {
            ended = true;
            receiver.end();
        }
    }
}
