package io.k4j.launcher.inprocess;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.client.http.HttpClient;
import io.k4j.apiserver.ApiServer;

/**
 * fabric8's HTTP client for the components that run in the apiserver's JVM: their requests go through the apiserver's
 * whole pipeline (same URLs, authentication by the same client certificate, authorization, admission, audit, metrics)
 * without TLS, HTTP/2 framing and the loopback socket, which at 5,000 simulated nodes cost a third of the server's CPU.
 * Give it to {@code KubernetesClientBuilder.withHttpClientFactory}. Thread-safe.
 */
public final class InProcessHttpClientFactory implements HttpClient.Factory {
    private final ApiServer server;

    public InProcessHttpClientFactory(ApiServer server) {
        this.server = requireNonNull(server, "server is null");
    }

    @Override
    public InProcessHttpClientBuilder newBuilder() {
        return new InProcessHttpClientBuilder(this);
    }

    ApiServer server() {
        return server;
    }
}
