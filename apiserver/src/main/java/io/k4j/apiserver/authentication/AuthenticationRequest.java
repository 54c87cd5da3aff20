package io.k4j.apiserver.authentication;

import static java.util.Objects.requireNonNull;

import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;

/**
 * What authenticators may look at: the request headers (names in lower case) and the verified TLS client
 * certificate chain (empty when the client sent none).
 */
public record AuthenticationRequest(Map<String, List<String>> headers, List<X509Certificate> clientCertificates) {
    public AuthenticationRequest {
        headers = Map.copyOf(requireNonNull(headers, "headers is null"));
        clientCertificates = List.copyOf(requireNonNull(clientCertificates, "clientCertificates is null"));
    }

    /** The first value of a header, or {@code null}; {@code name} must be lower case. */
    public String header(String name) {
        List<String> values = headers.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }
}
