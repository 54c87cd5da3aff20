package io.k4j.apiserver.registry.groups;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Small helpers for reading and writing the JSON trees strategies work on. Absent and {@code null} fields are
 * treated alike, as Go's pointer fields are. Stateless and thread-safe.
 */
public final class Json {
    private Json() {}

    /** The node at {@code path}, or a missing node; never null. */
    public static JsonNode at(JsonNode node, String... path) {
        JsonNode current = node == null ? MissingNode.getInstance() : node;
        for (String name : path) {
            JsonNode next = current.get(name);
            if (next == null) {
                return MissingNode.getInstance();
            }
            current = next;
        }
        return current;
    }

    /** Whether a non-null value is present at {@code path}. */
    public static boolean present(JsonNode node, String... path) {
        JsonNode value = at(node, path);
        return !value.isMissingNode() && !value.isNull();
    }

    /** The text at {@code path}, or null when absent or null. */
    public static String text(JsonNode node, String... path) {
        JsonNode value = at(node, path);
        return value.isMissingNode() || value.isNull() ? null : value.asText();
    }

    /** The text at {@code path}, or the empty string when absent, as a Go string field reads. */
    public static String string(JsonNode node, String... path) {
        String value = text(node, path);
        return value == null ? "" : value;
    }

    /** The integer at {@code path}, or null when absent or null. */
    public static Long integer(JsonNode node, String... path) {
        JsonNode value = at(node, path);
        return value.isMissingNode() || value.isNull() ? null : value.asLong();
    }

    /** The integer at {@code path}, or zero when absent, as a Go integer field reads. */
    public static long longValue(JsonNode node, String... path) {
        Long value = integer(node, path);
        return value == null ? 0 : value;
    }

    public static boolean bool(JsonNode node, String... path) {
        return at(node, path).asBoolean(false);
    }

    /** The object at {@code path}, created (with every missing parent) when absent. */
    public static ObjectNode object(ObjectNode node, String... path) {
        ObjectNode current = node;
        for (String name : path) {
            JsonNode next = current.get(name);
            if (next instanceof ObjectNode child) {
                current = child;
            } else {
                current = current.putObject(name);
            }
        }
        return current;
    }

    /** The elements of the array at {@code path}; empty when absent. */
    public static List<JsonNode> elements(JsonNode node, String... path) {
        JsonNode value = at(node, path);
        List<JsonNode> result = new ArrayList<>();
        if (value.isArray()) {
            value.forEach(result::add);
        }
        return result;
    }

    /** A string map (labels, annotations, node selectors) in key order; empty when absent. */
    public static Map<String, String> stringMap(JsonNode node, String... path) {
        JsonNode value = at(node, path);
        Map<String, String> result = new TreeMap<>();
        if (value.isObject()) {
            value.properties().forEach(entry -> result.put(entry.getKey(), entry.getValue().isNull() ? "" : entry.getValue().asText()));
        }
        return result;
    }

    /** Size of the array or object at {@code path}; zero when absent. */
    public static int size(JsonNode node, String... path) {
        JsonNode value = at(node, path);
        return value.isContainerNode() ? value.size() : 0;
    }

    /**
     * Upstream's semantic equality: absent equals null, and numbers compare by value whatever their JSON
     * representation ({@code 1} and {@code 1.0}, int and long nodes).
     */
    public static boolean semanticEquals(JsonNode left, JsonNode right) {
        return io.k4j.api.codec.Json.semanticEquals(left, right);
    }

    /** Sets {@code name} to {@code value} unless a non-null value is already there. */
    public static void putIfAbsent(ObjectNode node, String name, int value) {
        if (!present(node, name)) {
            node.put(name, value);
        }
    }

    public static void putIfAbsent(ObjectNode node, String name, String value) {
        if (!present(node, name) || node.get(name).asText().isEmpty()) {
            node.put(name, value);
        }
    }

    public static void putIfAbsent(ObjectNode node, String name, boolean value) {
        if (!present(node, name)) {
            node.put(name, value);
        }
    }

    public static ObjectNode newObject() {
        return JsonNodeFactory.instance.objectNode();
    }
}
