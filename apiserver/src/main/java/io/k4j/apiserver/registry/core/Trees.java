package io.k4j.apiserver.registry.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import io.k4j.api.quantity.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Small accessors for the JSON trees strategies work on: reads that treat an absent or {@code null} field as
 * Go's zero value (which is how upstream's typed code sees an omitted field), and get-or-create writes.
 * Stateless and thread-safe.
 */
public final class Trees {
    private Trees() {}

    /** The node at {@code path}, or a missing node when any step is absent or not an object. */
    public static JsonNode at(JsonNode node, String... path) {
        JsonNode current = node;
        for (String step : path) {
            if (current == null || !current.isObject()) {
                return MissingNode.getInstance();
            }
            current = current.get(step);
        }
        return current == null ? MissingNode.getInstance() : current;
    }

    /** The text at {@code path}, or {@code ""} when absent, null or not textual (Go's zero string). */
    public static String text(JsonNode node, String... path) {
        JsonNode value = at(node, path);
        return value.isTextual() ? value.asText() : "";
    }

    /** Whether the field at {@code path} is present and not {@code null}. */
    public static boolean has(JsonNode node, String... path) {
        JsonNode value = at(node, path);
        return !value.isMissingNode() && !value.isNull();
    }

    /** The integer at {@code path}, or {@code 0} when absent. */
    public static long integer(JsonNode node, String... path) {
        JsonNode value = at(node, path);
        return value.isNumber() ? value.asLong() : 0;
    }

    /** The boolean at {@code path}, or {@code false} when absent. */
    public static boolean bool(JsonNode node, String... path) {
        return at(node, path).asBoolean(false);
    }

    /** The elements of the array at {@code path}, empty when absent. */
    public static List<JsonNode> elements(JsonNode node, String... path) {
        JsonNode value = at(node, path);
        List<JsonNode> result = new ArrayList<>();
        if (value.isArray()) {
            value.forEach(result::add);
        }
        return result;
    }

    /** The object elements of the array at {@code path}; other elements are skipped. */
    public static List<ObjectNode> objects(JsonNode node, String... path) {
        List<ObjectNode> result = new ArrayList<>();
        for (JsonNode element : elements(node, path)) {
            if (element instanceof ObjectNode object) {
                result.add(object);
            }
        }
        return result;
    }

    /** The quantity at {@code path} (a string or a number), or empty when absent or not a valid quantity. */
    public static Optional<Quantity> quantity(JsonNode node, String... path) {
        JsonNode value = at(node, path);
        if (!value.isTextual() && !value.isNumber()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Quantity.fromJson(value));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** The number of fields of the object at {@code path}, 0 when absent. */
    public static int size(JsonNode node, String... path) {
        JsonNode value = at(node, path);
        return value.isObject() || value.isArray() ? value.size() : 0;
    }

    /** The object field {@code name} of {@code parent}, created (replacing a null) when absent. */
    public static ObjectNode object(ObjectNode parent, String name) {
        JsonNode value = parent.get(name);
        if (value instanceof ObjectNode object) {
            return object;
        }
        return parent.putObject(name);
    }

    /** The object at {@code path}, creating every missing step. */
    public static ObjectNode object(ObjectNode parent, String... path) {
        ObjectNode current = parent;
        for (String step : path) {
            current = object(current, step);
        }
        return current;
    }

    /** The array field {@code name} of {@code parent}, created when absent. */
    public static ArrayNode array(ObjectNode parent, String name) {
        JsonNode value = parent.get(name);
        if (value instanceof ArrayNode array) {
            return array;
        }
        return parent.putArray(name);
    }

    /** Sets {@code name} to {@code value} when the field is absent or null, as a defaulting function does. */
    public static void defaultText(ObjectNode object, String name, String value) {
        if (!object.hasNonNull(name) || object.get(name).asText().isEmpty()) {
            object.put(name, value);
        }
    }

    /** Sets {@code name} to {@code value} when the field is absent or null. */
    public static void defaultInteger(ObjectNode object, String name, long value) {
        if (!object.hasNonNull(name)) {
            if (value >= Integer.MIN_VALUE && value <= Integer.MAX_VALUE) {
                object.put(name, (int) value);
            } else {
                object.put(name, value);
            }
        }
    }

    /** Sets {@code name} to {@code value} when the field is absent or null. */
    public static void defaultBoolean(ObjectNode object, String name, boolean value) {
        if (!object.hasNonNull(name)) {
            object.put(name, value);
        }
    }

    /** A new empty object. */
    public static ObjectNode newObject() {
        return JsonNodeFactory.instance.objectNode();
    }

    /** Whether two subtrees are equal, treating absent and null alike and numbers by value. */
    public static boolean sameValue(JsonNode left, JsonNode right) {
        return Json.semanticEquals(left, right);
    }

    /** An empty object as absent: maps that are empty and maps that are omitted are the same after a JSON round trip. */
    public static JsonNode emptyAsAbsent(JsonNode value) {
        return value != null && value.isObject() && value.isEmpty() ? null : value;
    }
}
