package io.k4j.apiserver.endpoints;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Codec;
import io.k4j.api.errors.StatusException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** Writing objects and Status errors in the negotiated representation. Thread-safe (stateless). */
public final class Responses {
    private static final String NOT_FOUND_MESSAGE = "the server could not find the requested resource";

    private Responses() {}

    public static void write(HttpExchange exchange, int status, JsonNode body, boolean yaml) throws IOException {
        exchange.respond(status, yaml ? "application/yaml" : "application/json", yaml ? Codec.encodeYamlBytes(body) : Codec.encodeJson(body));
    }

    /** Sends a Status for the error, in YAML when the client asked only for YAML. */
    public static void writeError(HttpExchange exchange, StatusException error) throws IOException {
        boolean yaml = false;
        String accept = exchange.header("accept");
        if (accept != null && accept.contains("application/yaml") && !accept.contains("json")) {
            yaml = true;
        }
        ObjectNode status = error.toStatus();
        write(exchange, error.code(), status, yaml);
    }

    public static StatusException notFound() {
        return new StatusException(io.k4j.api.errors.StatusReason.NOT_FOUND, 404, NOT_FOUND_MESSAGE, null, null, null, java.util.List.of(), null);
    }

    public static void writeText(HttpExchange exchange, int status, String text) throws IOException {
        exchange.respond(status, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
    }
}
