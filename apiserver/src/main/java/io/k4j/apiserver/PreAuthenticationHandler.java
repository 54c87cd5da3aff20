package io.k4j.apiserver;

import io.k4j.apiserver.endpoints.HttpExchange;
import java.io.IOException;

/**
 * Serves the paths under one prefix before authentication and authorization, with credentials of its own (k3s serves
 * its {@code /v1-k3s/} paths, which nodes call with the join token before they have a client certificate, beside the
 * apiserver in the same way). A handler must check its own credentials on every request. The request is still audited
 * and measured. Implementations must be thread-safe.
 */
public interface PreAuthenticationHandler {
    /** The path prefix served, e.g. {@code /v1-k4j/}; requests whose path starts with it come here. */
    String pathPrefix();

    /**
     * Answers the request completely.
     *
     * @throws io.k4j.api.errors.StatusException sent to the client as a Status
     */
    void handle(HttpExchange exchange) throws IOException;
}
