package io.k4j.apiserver;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;

/**
 * Serves one extra non-resource path (e.g. {@code /.well-known/openid-configuration} and
 * {@code /openid/v1/jwks}). Requests pass authentication and authorization (as a non-resource URL) first.
 * Thread-safe.
 */
public interface NonResourceHandler {
    /** The exact path served. */
    String path();

    /** Answers a GET. */
    Response get(Map<String, List<String>> query);

    record Response(int status, String contentType, byte[] body) {
        public Response {
            requireNonNull(contentType, "contentType is null");
            requireNonNull(body, "body is null");
        }
    }
}
