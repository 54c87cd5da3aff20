package io.k4j.apiserver.registry.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import java.util.List;

/** Test helpers: objects from JSON text with single quotes, and error messages as strings. */
public final class Json {
    private Json() {}

    public static ObjectNode object(String singleQuoted) {
        return (ObjectNode) io.k4j.api.codec.Json.read(singleQuoted.replace('\'', '"'));
    }

    /** The node as storage would return it: numbers set as longs by strategies read back as the parser types them. */
    public static JsonNode normalized(JsonNode node) {
        return io.k4j.api.codec.Json.read(node.toString());
    }

    public static List<String> messages(FieldErrors errors) {
        return errors.list().stream().map(FieldError::message).toList();
    }
}
