package io.k4j.apiserver;

import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.endpoints.HttpExchange;
import io.k4j.apiserver.endpoints.UpgradedConnection;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.HttpStream;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Blocker;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.eclipse.jetty.util.thread.Invocable;

/** An {@link HttpExchange} over a Jetty request and response, with blocking I/O. Not thread-safe. */
final class JettyExchange implements HttpExchange, RequestPipeline.StatusRecorder {
    /** The largest declared body {@link #respond} reads when the handler did not (see readUnreadSmallBody). */
    private static final long UNREAD_BODY_READ_LIMIT = 64 * 1024;
    private static final int DRAIN_LIMIT_FACTOR = 4;
    /** Bodies from this size on are streamed rather than collected into one array. */
    private static final int STREAMED_BODY_MINIMUM = 256 * 1024;
    private static final int STREAM_BUFFER_BYTES = 64 * 1024;

    private final Request request;
    private final Response response;
    private final Callback callback;
    private final int maxBodyBytes;
    private final String method;
    private final String path;
    private Map<String, List<String>> query;
    private Map<String, List<String>> headers;
    private byte[] body;
    private int status = 200;
    private boolean committed;
    private boolean upgraded;

    JettyExchange(Request request, Response response, Callback callback, int maxBodyBytes) {
        this.request = request;
        this.response = response;
        this.callback = callback;
        this.maxBodyBytes = maxBodyBytes;
        this.method = request.getMethod();
        String decodedPath = request.getHttpURI().getDecodedPath();
        this.path = decodedPath == null || decodedPath.isEmpty() ? "/" : decodedPath;
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
        if (query == null) {
            Map<String, List<String>> parameters = new LinkedHashMap<>();
            Fields fields = Request.extractQueryParameters(request);
            for (Fields.Field field : fields) {
                parameters.put(field.getName(), List.copyOf(field.getValues()));
            }
            query = Collections.unmodifiableMap(parameters);
        }
        return query;
    }

    @Override
    public Map<String, List<String>> headers() {
        if (headers == null) {
            Map<String, List<String>> values = new LinkedHashMap<>();
            for (HttpField field : request.getHeaders()) {
                values.computeIfAbsent(field.getLowerCaseName(), name -> new ArrayList<>()).add(field.getValue());
            }
            headers = Collections.unmodifiableMap(values);
        }
        return headers;
    }

    @Override
    public byte[] body() throws IOException {
        if (body != null) {
            return body;
        }
        long declared = request.getLength();
        try (InputStream in = Content.Source.asInputStream(request)) {
            ByteArrayOutputStream out;
            long total;
            if (declared >= 0 && declared <= maxBodyBytes) {
                // The usual case: a body of known size is read straight into its array, without a 16 KiB buffer to
                // clear and a copy out of a growing stream for every request.
                byte[] exact = in.readNBytes((int) declared);
                int next = in.read();
                if (exact.length == declared && next < 0) {
                    body = exact;
                    return body;
                }
                // Not the declared size: read on as for an unknown size.
                out = new ByteArrayOutputStream(exact.length + 1024);
                out.write(exact);
                total = exact.length;
                if (next >= 0) {
                    out.write(next);
                    total++;
                }
            } else {
                out = new ByteArrayOutputStream(1024);
                total = 0;
            }
            byte[] buffer = new byte[16 * 1024];
            int read;
            while ((read = in.read(buffer)) >= 0) {
                total += read;
                if (total <= maxBodyBytes) {
                    out.write(buffer, 0, read);
                } else if (total > DRAIN_LIMIT_FACTOR * (long) maxBodyBytes) {
                    break;
                }
            }
            if (total > maxBodyBytes) {
                // The rest of a moderately oversized body is read and dropped so that the client, still sending,
                // receives the 413 instead of a reset stream.
                throw StatusException.requestEntityTooLarge(maxBodyBytes);
            }
            body = out.toByteArray();
            return body;
        }
    }

    @Override
    public void addHeader(String name, String value) {
        response.getHeaders().add(name, value);
    }

    @Override
    public void respond(int newStatus, String contentType, byte[] content) throws IOException {
        commitComplete(newStatus, contentType, content.length);
        boolean head = request.getMethod().equals("HEAD");
        try (Blocker.Callback blocker = Blocker.callback()) {
            response.write(true, head ? ByteBuffer.allocate(0) : ByteBuffer.wrap(content), blocker);
            blocker.block();
        }
    }

    @Override
    public void respond(int newStatus, String contentType, int length, BodyWriter body) throws IOException {
        if (length < STREAMED_BODY_MINIMUM || request.getMethod().equals("HEAD")) {
            HttpExchange.super.respond(newStatus, contentType, length, body);
            return;
        }
        commitComplete(newStatus, contentType, length);
        try (OutputStream out = new BufferedOutputStream(Content.Sink.asOutputStream(response), STREAM_BUFFER_BYTES)) {
            body.writeTo(out);
        }
    }

    /** Starts a complete response of {@code length} bytes: status and headers. */
    private void commitComplete(int newStatus, String contentType, int length) {
        readUnreadSmallBody();
        status = newStatus;
        committed = true;
        response.setStatus(newStatus);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, Integer.toString(length));
    }

    /**
     * Reads a small request body that the handler answered without reading (a 404 or 401 for a POST): over HTTP/2
     * Jetty would otherwise reset the stream the client is still sending on, and the JDK client reports that reset
     * instead of the answer. Large bodies are left unread, so an unauthenticated client cannot make the server read
     * megabytes.
     */
    private void readUnreadSmallBody() {
        long declared = request.getLength();
        if (body != null || declared <= 0 || declared > UNREAD_BODY_READ_LIMIT) {
            return;
        }
        try {
            body();
        } catch (IOException | StatusException e) {
            // The answer is sent all the same.
        }
    }

    @Override
    public OutputStream startStream(int newStatus, String contentType) {
        status = newStatus;
        committed = true;
        response.setStatus(newStatus);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        return Content.Sink.asOutputStream(response);
    }

    @Override
    public Optional<NonBlockingStream> startNonBlockingStream(int newStatus, String contentType) throws IOException {
        // The headers go out now, as a watch's first flush sends them: a client waits for them before any event.
        startStream(newStatus, contentType).flush();
        return Optional.of(new NonBlockingStream() {
            @Override
            public void send(byte[] bytes, Consumer<Throwable> done) {
                // NON_BLOCKING: the continuation only queues the next write, so Jetty may run it on its selector thread.
                response.write(false, ByteBuffer.wrap(bytes), Callback.from(Invocable.InvocationType.NON_BLOCKING, () -> done.accept(null), done));
            }

            @Override
            public void onClientGone(Consumer<Throwable> onFailure) {
                request.addFailureListener(onFailure);
            }
        });
    }

    @Override
    public boolean committed() {
        return committed || upgraded || response.isCommitted();
    }

    /**
     * Switches an HTTP/1.1 connection: answers 101, completes the exchange so that Jetty hands the connection's end
     * point to an {@link EndPointStreams} (Jetty's own upgrade path, see {@link HttpStream#UPGRADE_CONNECTION_ATTRIBUTE}),
     * and returns it once open. Query and headers are read before, since the request is recycled afterwards.
     */
    @Override
    public UpgradedConnection switchProtocols(Map<String, String> upgradeHeaders) throws IOException {
        if (request.getConnectionMetaData().getHttpVersion() != HttpVersion.HTTP_1_1 || committed()) {
            throw new UnsupportedOperationException("only an uncommitted HTTP/1.1 exchange can switch protocols");
        }
        query();
        headers();
        EndPointStreams streams = new EndPointStreams(request.getConnectionMetaData().getConnection().getEndPoint(),
                request.getConnectionMetaData().getConnector().getExecutor());
        request.setAttribute(HttpStream.UPGRADE_CONNECTION_ATTRIBUTE, streams);
        status = HttpStatus.SWITCHING_PROTOCOLS_101;
        response.setStatus(HttpStatus.SWITCHING_PROTOCOLS_101);
        upgradeHeaders.forEach((name, value) -> response.getHeaders().put(name, value));
        upgraded = true;
        // Completing the exchange sends the 101 and hands the end point over; writing the 101 as a last, empty
        // response instead would make Jetty end the connection.
        callback.succeeded();
        streams.awaitOpen(Duration.ofSeconds(10));
        return streams;
    }

    /** Completes the exchange, unless a protocol switch did. */
    void finish() {
        if (!upgraded) {
            callback.succeeded();
        }
    }

    @Override
    public int status() {
        return status;
    }
}
