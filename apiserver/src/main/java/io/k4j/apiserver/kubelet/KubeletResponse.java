package io.k4j.apiserver.kubelet;

import static java.util.Objects.requireNonNull;

import io.k4j.apiserver.stream.BulkInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A kubelet's answer on its own connection: the status and headers, then either the body ({@link #body()}, decoded
 * from chunked or length-delimited framing) or, after {@code 101 Switching Protocols}, the connection's raw streams
 * ({@link #rawInput()}, {@link #rawOutput()}). Closing it closes the connection.
 *
 * <p>Not thread-safe, except that after an upgrade one thread may read while another writes.
 */
public final class KubeletResponse implements Closeable {
    private static final int MAX_HEAD_BYTES = 64 * 1024;

    private final Socket socket;
    private final InputStream input;
    private final int status;
    private final Map<String, List<String>> headers;

    private KubeletResponse(Socket socket, InputStream input, int status, Map<String, List<String>> headers) {
        this.socket = socket;
        this.input = input;
        this.status = status;
        this.headers = headers;
    }

    /** Reads the status line and headers from {@code socket} (the request was written). */
    static KubeletResponse read(Socket socket) throws IOException {
        InputStream input = new java.io.BufferedInputStream(socket.getInputStream());
        String statusLine = readLine(input);
        // "HTTP/1.1 200 OK"
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
            throw new IOException("invalid HTTP status line from the kubelet: " + statusLine);
        }
        int status;
        try {
            status = Integer.parseInt(parts[1]);
        } catch (NumberFormatException e) {
            throw new IOException("invalid HTTP status line from the kubelet: " + statusLine);
        }
        Map<String, List<String>> headers = new LinkedHashMap<>();
        int total = statusLine.length();
        while (true) {
            String line = readLine(input);
            total += line.length();
            if (total > MAX_HEAD_BYTES) {
                throw new IOException("the kubelet's response head is larger than " + MAX_HEAD_BYTES + " bytes");
            }
            if (line.isEmpty()) {
                break;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new IOException("invalid header line from the kubelet: " + line);
            }
            headers.computeIfAbsent(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), name -> new ArrayList<>())
                    .add(line.substring(colon + 1).trim());
        }
        headers.replaceAll((name, values) -> List.copyOf(values));
        return new KubeletResponse(socket, input, status, Map.copyOf(headers));
    }

    static String readLine(InputStream input) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        while (true) {
            int next = input.read();
            if (next < 0) {
                throw new EOFException("the kubelet closed the connection within the response head");
            }
            if (next == '\n') {
                break;
            }
            if (line.size() > MAX_HEAD_BYTES) {
                throw new IOException("header line too long");
            }
            line.write(next);
        }
        byte[] bytes = line.toByteArray();
        int length = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        return new String(bytes, 0, length, StandardCharsets.ISO_8859_1);
    }

    public int status() {
        return status;
    }

    /** Headers with lower-case names. */
    public Map<String, List<String>> headers() {
        return headers;
    }

    /** The first value of a header ({@code name} in lower case), or null. */
    public String header(String name) {
        List<String> values = headers.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    /** The body, decoded from its transfer framing. */
    public InputStream body() {
        if ("chunked".equalsIgnoreCase(header("transfer-encoding"))) {
            return new ChunkedInput(input);
        }
        String length = header("content-length");
        if (length != null) {
            return new LimitedInput(input, Long.parseLong(length.trim()));
        }
        return input;
    }

    /** The body, at most {@code limit} bytes of it, as text (for error messages). */
    public String bodyText(int limit) throws IOException {
        return new String(body().readNBytes(limit), StandardCharsets.UTF_8).trim();
    }

    /** After a protocol switch: the bytes the kubelet sends, including any that came right behind its 101. */
    public InputStream rawInput() {
        return input;
    }

    /** After a protocol switch: bytes to the kubelet. */
    public OutputStream rawOutput() throws IOException {
        return socket.getOutputStream();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    /** Chunked transfer coding (RFC 9112 section 7.1); trailers are read and dropped. */
    private static final class ChunkedInput extends BulkInputStream {
        private final InputStream input;
        private long remaining;
        private boolean finished;

        ChunkedInput(InputStream input) {
            this.input = requireNonNull(input, "input is null");
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            if (finished) {
                return -1;
            }
            if (remaining == 0) {
                String sizeLine = readLine(input);
                int extension = sizeLine.indexOf(';');
                String size = (extension >= 0 ? sizeLine.substring(0, extension) : sizeLine).trim();
                try {
                    remaining = Long.parseLong(size, 16);
                } catch (NumberFormatException e) {
                    throw new IOException("invalid chunk size from the kubelet: " + sizeLine);
                }
                if (remaining == 0) {
                    while (!readLine(input).isEmpty()) {
                        // Trailer fields: not used.
                    }
                    finished = true;
                    return -1;
                }
            }
            int count = input.read(buffer, offset, (int) Math.min(length, remaining));
            if (count < 0) {
                throw new EOFException("the kubelet closed the connection within a chunk");
            }
            remaining -= count;
            if (remaining == 0) {
                readLine(input);
            }
            return count;
        }

        @Override
        public int available() throws IOException {
            return finished ? 0 : (int) Math.min(remaining, input.available());
        }
    }

    private static final class LimitedInput extends BulkInputStream {
        private final InputStream input;
        private long remaining;

        LimitedInput(InputStream input, long length) {
            this.input = input;
            this.remaining = length;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            if (remaining <= 0) {
                return -1;
            }
            int count = input.read(buffer, offset, (int) Math.min(length, remaining));
            if (count > 0) {
                remaining -= count;
            }
            return count;
        }
    }
}
