package io.k4j.kubelet.prober;

import static java.util.Objects.requireNonNull;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * The HTTP GET of httpGet probes and hooks, as upstream's prober client: HTTP/1.1, one connection per request, TLS
 * without certificate verification, redirects followed only to the same host (at most 10), at most 10 KiB of the
 * body read. Errors carry Go's wording ({@code Get "http://…": dial tcp …: connect: connection refused}) since they
 * end up in events. Thread-safe.
 */
public final class HttpGetter {
    static final int MAX_BODY_BYTES = 10 * 1024;
    private static final int MAX_REDIRECTS = 10;
    private static final int MAX_HEADER_BYTES = 64 * 1024;

    private final SSLContext insecureTls;

    /** A response: its status code, headers (names lower-cased) and the first 10 KiB of its body. */
    public record Response(int statusCode, Map<String, List<String>> headers, byte[] body, URI url) {
        public Response {
            headers = Map.copyOf(headers);
            body = body.clone();
            requireNonNull(url, "url is null");
        }

        @Override
        public byte[] body() {
            return body.clone();
        }

        public String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    public HttpGetter() {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {new TrustingManager()}, new SecureRandom());
            this.insecureTls = context;
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("TLS is unavailable", e);
        }
    }

    /**
     * Sends GET requests, following same-host redirects, within {@code timeout} for the whole exchange.
     *
     * @param hostHeader the Host header to send instead of the URL's host, or null
     * @param headers the request headers (besides Host), in order; a name may repeat
     * @throws IOException with Go's wording when no response arrived
     */
    public Response get(URI url, String hostHeader, List<Map.Entry<String, String>> headers, Duration timeout) throws IOException {
        Instant deadline = Instant.now().plus(timeout);
        URI current = url;
        for (int redirects = 0; ; redirects++) {
            Response response = exchange(current, hostHeader, headers, deadline);
            if (response.statusCode() < 300 || response.statusCode() >= 400 || response.statusCode() == 304) {
                return response;
            }
            List<String> location = response.headers().get("location");
            if (location == null || location.isEmpty()) {
                return response;
            }
            URI next;
            try {
                next = current.resolve(new URI(location.get(0)));
            } catch (URISyntaxException e) {
                return response;
            }
            if (next.getHost() == null || !next.getHost().equalsIgnoreCase(url.getHost())) {
                // A redirect to another host is not followed: the probe sees the redirect itself.
                return response;
            }
            if (redirects + 1 >= MAX_REDIRECTS) {
                throw new IOException("Get \"" + next + "\": stopped after 10 redirects");
            }
            if (!current.getHost().equalsIgnoreCase(next.getHost())) {
                hostHeader = null;
            }
            current = next;
        }
    }

    private Response exchange(URI url, String hostHeader, List<Map.Entry<String, String>> headers, Instant deadline) throws IOException {
        String scheme = url.getScheme() == null ? "http" : url.getScheme().toLowerCase(Locale.ROOT);
        int port = url.getPort() > 0 ? url.getPort() : scheme.equals("https") ? 443 : 80;
        String host = url.getHost();
        String address = ContainerPorts.joinHostPort(stripBrackets(host), port);
        Socket socket = new Socket();
        try {
            try {
                socket.connect(new InetSocketAddress(stripBrackets(host), port), remainingMillis(deadline, url));
            } catch (SocketTimeoutException e) {
                throw new IOException("Get \"" + url + "\": dial tcp " + address + ": i/o timeout", e);
            } catch (ConnectException e) {
                throw new IOException("Get \"" + url + "\": dial tcp " + address + ": connect: connection refused", e);
            } catch (NoRouteToHostException e) {
                throw new IOException("Get \"" + url + "\": dial tcp " + address + ": connect: no route to host", e);
            } catch (UnknownHostException e) {
                throw new IOException("Get \"" + url + "\": dial tcp: lookup " + host + ": no such host", e);
            }
            Socket connection = socket;
            if (scheme.equals("https")) {
                SSLSocket tls = (SSLSocket) insecureTls.getSocketFactory().createSocket(socket, stripBrackets(host), port, true);
                tls.setSoTimeout(remainingMillis(deadline, url));
                tls.startHandshake();
                connection = tls;
            }
            connection.setSoTimeout(remainingMillis(deadline, url));
            writeRequest(connection.getOutputStream(), url, hostHeader != null ? hostHeader : host + (url.getPort() > 0 ? ":" + url.getPort() : ""),
                    headers);
            return readResponse(connection.getInputStream(), url, deadline, connection);
        } catch (SocketTimeoutException e) {
            throw new IOException("Get \"" + url + "\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)", e);
        } finally {
            socket.close();
        }
    }

    private static void writeRequest(OutputStream output, URI url, String host, List<Map.Entry<String, String>> headers) throws IOException {
        String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
        if (url.getRawQuery() != null) {
            path += "?" + url.getRawQuery();
        }
        StringBuilder request = new StringBuilder("GET ").append(path).append(" HTTP/1.1\r\n");
        request.append("Host: ").append(host).append("\r\n");
        for (Map.Entry<String, String> header : headers) {
            request.append(header.getKey()).append(": ").append(header.getValue()).append("\r\n");
        }
        request.append("Connection: close\r\n\r\n");
        output.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
        output.flush();
    }

    private static Response readResponse(InputStream input, URI url, Instant deadline, Socket connection) throws IOException {
        String statusLine = readLine(input);
        if (statusLine == null) {
            throw new IOException("Get \"" + url + "\": EOF");
        }
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
            throw new IOException("Get \"" + url + "\": malformed HTTP response \"" + statusLine + "\"");
        }
        int statusCode;
        try {
            statusCode = Integer.parseInt(parts[1]);
        } catch (NumberFormatException e) {
            throw new IOException("Get \"" + url + "\": malformed HTTP status code \"" + parts[1] + "\"", e);
        }
        Map<String, List<String>> headers = new LinkedHashMap<>();
        int headerBytes = 0;
        while (true) {
            String line = readLine(input);
            if (line == null || line.isEmpty()) {
                break;
            }
            headerBytes += line.length();
            if (headerBytes > MAX_HEADER_BYTES) {
                throw new IOException("Get \"" + url + "\": response headers too large");
            }
            int colon = line.indexOf(':');
            if (colon > 0) {
                headers.computeIfAbsent(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), key -> new ArrayList<>())
                        .add(line.substring(colon + 1).trim());
            }
        }
        connection.setSoTimeout(remainingMillis(deadline, url));
        byte[] body = readBody(input, headers);
        return new Response(statusCode, headers, body, url);
    }

    private static byte[] readBody(InputStream input, Map<String, List<String>> headers) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        List<String> encoding = headers.get("transfer-encoding");
        if (encoding != null && encoding.stream().anyMatch(value -> value.toLowerCase(Locale.ROOT).contains("chunked"))) {
            while (body.size() < MAX_BODY_BYTES) {
                String sizeLine = readLine(input);
                if (sizeLine == null) {
                    break;
                }
                int semicolon = sizeLine.indexOf(';');
                int size;
                try {
                    size = Integer.parseInt((semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim(), 16);
                } catch (NumberFormatException e) {
                    break;
                }
                if (size == 0) {
                    break;
                }
                byte[] chunk = input.readNBytes(size);
                body.write(chunk, 0, Math.min(chunk.length, MAX_BODY_BYTES - body.size()));
                readLine(input);
            }
            return body.toByteArray();
        }
        long length = Long.MAX_VALUE;
        List<String> contentLength = headers.get("content-length");
        if (contentLength != null && !contentLength.isEmpty()) {
            try {
                length = Long.parseLong(contentLength.get(0));
            } catch (NumberFormatException e) {
                length = Long.MAX_VALUE;
            }
        }
        return input.readNBytes((int) Math.min(length, MAX_BODY_BYTES));
    }

    /** One CRLF- (or LF-) terminated line in ISO-8859-1, or null at the end of the stream. */
    private static String readLine(InputStream input) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int next;
        while ((next = input.read()) >= 0) {
            if (next == '\n') {
                byte[] bytes = line.toByteArray();
                int length = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, length, StandardCharsets.ISO_8859_1);
            }
            line.write(next);
            if (line.size() > MAX_HEADER_BYTES) {
                throw new IOException("header line too long");
            }
        }
        return line.size() == 0 ? null : line.toString(StandardCharsets.ISO_8859_1);
    }

    private static int remainingMillis(Instant deadline, URI url) throws IOException {
        long remaining = Duration.between(Instant.now(), deadline).toMillis();
        if (remaining <= 0) {
            throw new SocketTimeoutException("deadline passed for " + url);
        }
        return (int) Math.min(Integer.MAX_VALUE, remaining);
    }

    private static String stripBrackets(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    /** Probes do not verify the container's certificate, as upstream's {@code InsecureSkipVerify}. */
    private static final class TrustingManager implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {}

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {}

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
