package io.k4j.kubelet.server;

import static java.util.Objects.requireNonNull;

import io.k4j.api.codec.QueryStrings;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * One HTTP/1.1 request on its own connection and its response: a complete response, a chunked stream, or (after the
 * handler relayed a protocol switch) the connection's raw bytes. Every response closes the connection
 * ({@code Connection: close}), which is how the apiserver talks to kubelets anyway (one connection per request).
 *
 * <p>Not thread-safe: one request is handled by one thread (an upgraded connection may be read by one thread while
 * another writes).
 */
public final class KubeletExchange {
    static final int MAX_HEAD_BYTES = 64 * 1024;

    private final String method;
    private final String target;
    private final String path;
    private final Map<String, List<String>> query;
    private final Map<String, List<String>> headers;
    private final List<X509Certificate> peerCertificates;
    private final InputStream input;
    private final OutputStream output;
    private boolean committed;

    private KubeletExchange(String method, String target, String path, Map<String, List<String>> query, Map<String, List<String>> headers,
            List<X509Certificate> peerCertificates, InputStream input, OutputStream output) {
        this.method = method;
        this.target = target;
        this.path = path;
        this.query = query;
        this.headers = headers;
        this.peerCertificates = List.copyOf(peerCertificates);
        this.input = input;
        this.output = output;
    }

    /**
     * Reads a request head from {@code input}.
     *
     * @throws BadRequest when it is not a valid HTTP/1.x request
     */
    static KubeletExchange read(InputStream input, OutputStream output, List<X509Certificate> peerCertificates) throws IOException {
        String requestLine = readLine(input);
        String[] parts = requestLine.split(" ");
        if (parts.length != 3 || !parts[2].startsWith("HTTP/1.")) {
            throw new BadRequest("malformed request line");
        }
        URI uri;
        try {
            uri = new URI(parts[1]);
        } catch (URISyntaxException e) {
            throw new BadRequest("malformed request target");
        }
        Map<String, List<String>> headers = new LinkedHashMap<>();
        int total = requestLine.length();
        while (true) {
            String line = readLine(input);
            total += line.length() + 2;
            if (total > MAX_HEAD_BYTES) {
                throw new BadRequest("request head too large");
            }
            if (line.isEmpty()) {
                break;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new BadRequest("malformed header line");
            }
            headers.computeIfAbsent(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), name -> new ArrayList<>()).add(line.substring(colon + 1).trim());
        }
        headers.replaceAll((name, values) -> List.copyOf(values));
        return new KubeletExchange(parts[0], parts[1], uri.getPath() == null ? "/" : uri.getPath(), QueryStrings.decode(uri.getRawQuery()), Map.copyOf(headers),
                peerCertificates, input, output);
    }

    private static String readLine(InputStream input) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        while (true) {
            int next = input.read();
            if (next < 0) {
                throw new EOFException("connection closed within the request head");
            }
            if (next == '\n') {
                break;
            }
            if (line.size() >= MAX_HEAD_BYTES) {
                throw new BadRequest("request line too long");
            }
            line.write(next);
        }
        byte[] bytes = line.toByteArray();
        int length = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        return new String(bytes, 0, length, StandardCharsets.ISO_8859_1);
    }

    public String method() {
        return method;
    }

    /** The request target as sent (path and query, encoded). */
    public String target() {
        return target;
    }

    /** The decoded path. */
    public String path() {
        return path;
    }

    public Map<String, List<String>> query() {
        return query;
    }

    public Optional<String> queryParameter(String name) {
        List<String> values = query.get(name);
        return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
    }

    /** Request headers by lower-case name. */
    public Map<String, List<String>> headers() {
        return headers;
    }

    public Optional<String> header(String name) {
        List<String> values = headers.get(name);
        return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
    }

    /** The client's certificate chain as verified by TLS against the cluster CA; empty when it sent none. */
    public List<X509Certificate> peerCertificates() {
        return peerCertificates;
    }

    public boolean committed() {
        return committed;
    }

    /** Sends a complete response. */
    public void respond(int status, String contentType, byte[] body) throws IOException {
        writeHead(status, Map.of("Content-Type", contentType, "Content-Length", Integer.toString(body.length)));
        if (!method.equals("HEAD")) {
            output.write(body);
        }
        output.flush();
    }

    /** Sends a plain-text response, as upstream's kubelet answers errors. */
    public void respondText(int status, String text) throws IOException {
        respond(status, "text/plain; charset=utf-8", (text + "\n").getBytes(StandardCharsets.UTF_8));
    }

    /** Starts a chunked response; each flush sends what was written, closing ends the response. */
    public OutputStream startChunked(int status, String contentType) throws IOException {
        writeHead(status, Map.of("Content-Type", contentType, "Transfer-Encoding", "chunked"));
        output.flush();
        return new ChunkedOutput(output);
    }

    /** The connection's bytes from the client after the request head (for relaying an upgrade). */
    public InputStream rawInput() {
        committed = true;
        return input;
    }

    /** The connection's bytes to the client (for relaying an upgrade; the handler writes the response head). */
    public OutputStream rawOutput() {
        committed = true;
        return output;
    }

    private void writeHead(int status, Map<String, String> extraHeaders) throws IOException {
        if (committed) {
            throw new IllegalStateException("response already started");
        }
        committed = true;
        StringBuilder head = new StringBuilder("HTTP/1.1 ").append(status).append(' ').append(reason(status)).append("\r\n");
        extraHeaders.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        head.append("Connection: close\r\n\r\n");
        output.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
    }

    private static String reason(int status) {
        return switch (status) {
            case 200 -> "OK";
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 500 -> "Internal Server Error";
            case 502 -> "Bad Gateway";
            default -> "Status " + status;
        };
    }

    /** A malformed request; answered with 400 and the connection closed. */
    static final class BadRequest extends IOException {
        BadRequest(String message) {
            super(message);
        }
    }

    private static final class ChunkedOutput extends OutputStream {
        private final OutputStream output;
        private boolean closed;

        ChunkedOutput(OutputStream output) {
            this.output = requireNonNull(output, "output is null");
        }

        @Override
        public void write(int value) throws IOException {
            write(new byte[] {(byte) value}, 0, 1);
        }

        @Override
        public void write(byte[] buffer, int offset, int length) throws IOException {
            if (closed) {
                throw new IOException("response closed");
            }
            if (length == 0) {
                return;
            }
            output.write((Integer.toHexString(length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            output.write(buffer, offset, length);
            output.write(new byte[] {'\r', '\n'});
        }

        @Override
        public void flush() throws IOException {
            output.flush();
        }

        @Override
        public void close() throws IOException {
            if (!closed) {
                closed = true;
                output.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                output.flush();
            }
        }
    }
}
