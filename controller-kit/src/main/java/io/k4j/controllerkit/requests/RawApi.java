package io.k4j.controllerkit.requests;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.k4j.api.codec.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Requests on the in-process components' hot paths (the node simulator's Lease renewals and pod status writes, the
 * event recorder's creates), sent as JSON text through the
 * fabric8 client's own HTTP client (same connection, TLS identity and User-Agent) and answered as JSON trees (or, for
 * writes whose callers keep only the new resourceVersion, read no further than it). The
 * typed fabric8 path costs a model copy, a reflective serialization and a reflective decoding of every answer, which
 * at 5,000 simulated nodes (500 renewals a second) was a large share of the whole server's CPU; the requests and the
 * objects on the server are the same. A failed request throws a {@link KubernetesClientException} with the HTTP code
 * (0 when no answer came), as the typed client does. Thread-safe.
 */
public final class RawApi {
    /** The content type of a JSON merge patch (RFC 7386), as the status writes send them. */
    public static final String MERGE_PATCH = "application/merge-patch+json";

    private final HttpClient httpClient;
    private final String serverUrl;
    private final String userAgent;
    /** Whether the client's configuration names a request timeout, which requests then carry (as fabric8's own do). */
    private final boolean timeoutPerRequest;
    /** How long a caller waits for an answer, beyond which the request counts as unanswered. */
    private final long timeoutMillis;
    /** Whether the client fails an answer that outlives its timeout by itself, so that callers need no timer. */
    private final boolean selfTimed;

    public RawApi(KubernetesClient client) {
        requireNonNull(client, "client is null");
        this.httpClient = client.getHttpClient();
        this.serverUrl = client.getMasterUrl().toString().replaceAll("/+$", "");
        this.userAgent = client.getConfiguration().getUserAgent();
        int configured = client.getConfiguration().getRequestTimeout();
        this.timeoutPerRequest = configured > 0;
        this.timeoutMillis = configured > 0 ? configured : Config.DEFAULT_REQUEST_TIMEOUT;
        this.selfTimed = httpClient instanceof SelfTimedHttpClient;
    }

    /** GET {@code path} (from the server's root, starting with a slash). */
    public JsonNode get(String path) throws InterruptedException {
        return tree("GET", path, "", null);
    }

    /** {@code method} on {@code path} with {@code body}. */
    public JsonNode send(String method, String path, String contentType, JsonNode body) throws InterruptedException {
        return tree(method, path, contentType, Json.writeString(requireNonNull(body, "body is null")));
    }

    /** {@code method} on {@code path} with the JSON text {@code body}. */
    public JsonNode send(String method, String path, String contentType, String body) throws InterruptedException {
        return tree(method, path, contentType, requireNonNull(body, "body is null"));
    }

    /** {@code method} on {@code path} with the JSON text {@code body}, for a caller that reads nothing of the answer. */
    public void write(String method, String path, String contentType, String body) throws InterruptedException {
        exchange(method, path, contentType, requireNonNull(body, "body is null"));
    }

    /**
     * {@code method} on {@code path} with the JSON text {@code body}, for a caller that keeps only the written object's
     * new {@code metadata.resourceVersion}: the answer is read up to it (the apiserver writes metadata first, and
     * resourceVersion before managedFields) instead of being parsed whole.
     */
    public String writeForResourceVersion(String method, String path, String contentType, String body) throws InterruptedException {
        byte[] answer = exchange(method, path, contentType, requireNonNull(body, "body is null"));
        return resourceVersion(answer).orElseThrow(() -> new KubernetesClientException(
                method + " " + path + " answered an object without metadata.resourceVersion", 0, null));
    }

    /** The {@code metadata.resourceVersion} of the JSON object {@code object}, read no further than it. */
    static Optional<String> resourceVersion(byte[] object) {
        try (JsonParser parser = Json.parserWithoutNameTable(object)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return Optional.empty();
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                boolean metadata = parser.currentName().equals("metadata");
                if (parser.nextToken() == JsonToken.START_OBJECT && metadata) {
                    while (parser.nextToken() == JsonToken.FIELD_NAME) {
                        boolean resourceVersion = parser.currentName().equals("resourceVersion");
                        if (parser.nextToken() == JsonToken.VALUE_STRING && resourceVersion) {
                            return Optional.of(parser.getText());
                        }
                        parser.skipChildren();
                    }
                    return Optional.empty();
                }
                parser.skipChildren();
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The answer as a tree; a failure throws. */
    private JsonNode tree(String method, String path, String contentType, String body) throws InterruptedException {
        byte[] answer = exchange(method, path, contentType, body);
        return answer.length == 0 ? Json.object() : Json.readWithoutNameTable(answer);
    }

    /** The answer's bytes; a failure throws. */
    private byte[] exchange(String method, String path, String contentType, String body) throws InterruptedException {
        HttpRequest.Builder builder = httpClient.newHttpRequestBuilder()
                .uri(serverUrl + path)
                .setHeader("Accept", "application/json");
        if (timeoutPerRequest) {
            builder.timeout(timeoutMillis, TimeUnit.MILLISECONDS);
        }
        if (userAgent != null && !userAgent.isEmpty()) {
            builder.setHeader("User-Agent", userAgent);
        }
        if (body != null) {
            builder.method(method, contentType, body);
        }
        HttpResponse<byte[]> response;
        try {
            CompletableFuture<HttpResponse<byte[]>> answer = httpClient.sendAsync(builder.build(), byte[].class);
            // The timeout also covers a server that accepted the request and never answers.
            response = selfTimed ? answer.get() : answer.get(timeoutMillis + TimeUnit.SECONDS.toMillis(5), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw noAnswer(method, path, e.getCause() == null ? e : e.getCause());
        } catch (TimeoutException e) {
            throw noAnswer(method, path, e);
        }
        byte[] answer = response.body() == null ? new byte[0] : response.body();
        if (!HttpResponse.isSuccessful(response.code())) {
            throw new KubernetesClientException(method + " " + path + " answered " + response.code() + ": " + message(answer), response.code(), null);
        }
        return answer;
    }

    private static KubernetesClientException noAnswer(String method, String path, Throwable cause) {
        return new KubernetesClientException(method + " " + path + " got no answer: " + cause, cause, 0, null, null);
    }

    /** The Status message of an error answer, else its text. */
    private static String message(byte[] answer) {
        String text = new String(answer, StandardCharsets.UTF_8);
        try {
            JsonNode status = Json.read(answer);
            if (status.path("message").isTextual()) {
                return status.path("message").asText();
            }
        } catch (RuntimeException e) {
            // Not JSON: the text itself says what happened.
        }
        return text;
    }
}
