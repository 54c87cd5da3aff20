package io.k4j.apiserver;

import static java.util.Objects.requireNonNull;

import io.k4j.api.codec.QueryStrings;
import java.net.URI;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A connection of a client in the server's own JVM (the scheduler, the controllers, the node agents), over which its
 * requests reach the same pipeline as HTTPS requests (authentication, authorization, admission, the stores, audit,
 * metrics) without TLS, HTTP/2 framing and sockets. Like a TLS connection it carries the client's certificate, checked
 * once when the connection opens; requests may also carry their own credentials in headers. Thread-safe.
 */
public final class InProcessConnection {
    /** The source address requests of this connection are audited with, as a client on the loopback interface. */
    private static final String SOURCE_ADDRESS = "127.0.0.1";

    private final RequestPipeline pipeline;
    private final List<X509Certificate> clientCertificates;
    private final int maxBodyBytes;

    InProcessConnection(RequestPipeline pipeline, List<X509Certificate> clientCertificates, List<X509Certificate> clientCas, int maxBodyBytes) {
        this.pipeline = requireNonNull(pipeline, "pipeline is null");
        this.clientCertificates = List.copyOf(clientCertificates);
        this.maxBodyBytes = maxBodyBytes;
        if (!this.clientCertificates.isEmpty() && !signedByOneOf(this.clientCertificates.get(0), clientCas)) {
            throw new IllegalArgumentException("the client certificate of " + this.clientCertificates.get(0).getSubjectX500Principal() + " is not signed by a client CA of this server");
        }
    }

    private static boolean signedByOneOf(X509Certificate leaf, List<X509Certificate> authorities) {
        for (X509Certificate authority : authorities) {
            try {
                leaf.verify(authority.getPublicKey());
                return true;
            } catch (GeneralSecurityException e) {
                // Not this one.
            }
        }
        return false;
    }

    /**
     * A request to serve with {@link #serve}.
     *
     * @param uri the request's URI; only its path and query are used
     * @param headers request headers, any case
     */
    public InProcessExchange exchange(String method, URI uri, Map<String, List<String>> headers, byte[] body, InProcessExchange.Receiver receiver) {
        Map<String, List<String>> lowerCase = new LinkedHashMap<>();
        headers.forEach((name, values) -> lowerCase.computeIfAbsent(name.toLowerCase(java.util.Locale.ROOT), key -> new ArrayList<>(values.size())).addAll(values));
        String path = uri.getPath() == null || uri.getPath().isEmpty() ? "/" : uri.getPath();
        return new InProcessExchange(method, path, QueryStrings.decode(uri.getRawQuery()), lowerCase, body, maxBodyBytes, receiver);
    }

    /** Serves {@code exchange} on the calling thread until its answer ended (for a watch: until the watch ends). */
    public void serve(InProcessExchange exchange) {
        pipeline.handle(exchange, clientCertificates, SOURCE_ADDRESS, exchange);
        exchange.finish();
    }
}
