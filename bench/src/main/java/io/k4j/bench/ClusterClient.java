package io.k4j.bench;

import static java.util.Objects.requireNonNull;

import io.k4j.e2e.KubeconfigHttpClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * An HTTP/2 client authenticated with the client certificate of a kubeconfig, for load generation. Each instance
 * holds one HTTP client (one connection pool); thread-safe.
 */
final class ClusterClient {
    private final URI server;
    private final HttpClient httpClient;

    private ClusterClient(URI server, HttpClient httpClient) {
        this.server = requireNonNull(server, "server is null");
        this.httpClient = requireNonNull(httpClient, "httpClient is null");
    }

    static ClusterClient fromKubeconfig(Path kubeconfig) {
        KubeconfigHttpClient client = KubeconfigHttpClient.of(kubeconfig);
        return new ClusterClient(client.server(), client.client());
    }

    HttpResponse<String> send(String method, String path, String body) {
        return send(method, path, body, "application/json");
    }

    /** Sends {@code body} (when not null) as {@code contentType}, e.g. {@code application/merge-patch+json} for a PATCH. */
    HttpResponse<String> send(String method, String path, String body, String contentType) {
        HttpRequest.Builder request = HttpRequest.newBuilder(server.resolve(path))
                .timeout(Duration.ofSeconds(60))
                .header("Accept", "application/json");
        if (body == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", contentType).method(method, HttpRequest.BodyPublishers.ofString(body));
        }
        try {
            return httpClient.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * Connects (GET /version) and returns this client, trying again for up to {@code timeout} while connecting fails:
     * on a machine other work keeps busy the first TLS handshake of a fresh process can outlast the connect timeout.
     */
    ClusterClient connected(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                send("GET", "/version", null);
                return this;
            } catch (UncheckedIOException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            }
        }
    }

    /** Sends and requires a 2xx answer. */
    String require(String method, String path, String body) {
        HttpResponse<String> response = send(method, path, body);
        if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException(method + " " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return response.body();
    }

    HttpClient httpClient() {
        return httpClient;
    }

    URI server() {
        return server;
    }
}
