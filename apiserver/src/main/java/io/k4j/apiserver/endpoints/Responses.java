package io.k4j.apiserver.endpoints;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.registry.generic.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** Writing objects and Status errors in the negotiated representation. Thread-safe (stateless). */
public final class Responses {
    public static final YAMLMapper YAML = new YAMLMapper(YAMLFactory.builder()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
            .build());

    private static final String NOT_FOUND_MESSAGE = "the server could not find the requested resource";

    private Responses() {}

    public static void write(HttpExchange exchange, int status, JsonNode body, boolean yaml) throws IOException {
        exchange.respond(status, yaml ? "application/yaml" : "application/json", yaml ? toYaml(body) : Json.write(body));
    }

    public static void writeJsonBytes(HttpExchange exchange, int status, String contentType, byte[] body, boolean yaml) throws IOException {
        if (yaml) {
            exchange.respond(status, "application/yaml", toYaml(Json.MAPPER.readTree(body)));
        } else {
            exchange.respond(status, contentType, body);
        }
    }

    public static byte[] toYaml(JsonNode node) {
        try {
            return YAML.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
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
