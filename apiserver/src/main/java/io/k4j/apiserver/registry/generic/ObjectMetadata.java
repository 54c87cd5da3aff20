package io.k4j.apiserver.registry.generic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Accessors for the {@code metadata} of an object tree, as the store reads and stamps it. Parsing and writing
 * JSON is {@link io.k4j.api.codec.Json}'s job. Stateless and thread-safe.
 */
public final class ObjectMetadata {
    private ObjectMetadata() {}

    /** {@code metadata}, created when absent. */
    public static ObjectNode of(ObjectNode object) {
        JsonNode metadata = object.get("metadata");
        if (metadata instanceof ObjectNode node) {
            return node;
        }
        return object.putObject("metadata");
    }

    /** A text field of {@code metadata}, or empty. */
    public static String text(ObjectNode object, String field) {
        JsonNode metadata = object.get("metadata");
        if (metadata == null) {
            return "";
        }
        JsonNode value = metadata.get(field);
        return value == null || value.isNull() ? "" : value.asText();
    }

    /** A string map of {@code metadata} (labels or annotations), empty when absent. */
    public static Map<String, String> stringMap(ObjectNode object, String field) {
        JsonNode metadata = object.get("metadata");
        JsonNode map = metadata == null ? null : metadata.get(field);
        if (map == null || !map.isObject() || map.isEmpty()) {
            return Map.of();
        }
        Map<String, String> result = new LinkedHashMap<>();
        map.fields().forEachRemaining(entry -> result.put(entry.getKey(), entry.getValue().asText()));
        return result;
    }
}
