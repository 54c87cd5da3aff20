package io.k4j.apiserver.endpoints;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import io.k4j.api.errors.StatusException;
import io.k4j.api.errors.StatusReason;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * JSON patch (RFC 6902) and JSON merge patch (RFC 7386) on object trees, as upstream applies
 * {@code application/json-patch+json} and {@code application/merge-patch+json}. Thread-safe (stateless).
 */
public final class Patches {
    private Patches() {}

    /**
     * RFC 7386: objects merge recursively, {@code null} removes, anything else replaces. Returns a new tree and leaves
     * {@code target} as it was.
     */
    public static JsonNode mergePatch(JsonNode target, JsonNode patch) {
        if (!patch.isObject()) {
            return patch.deepCopy();
        }
        ObjectNode result = target != null && target.isObject() ? ((ObjectNode) target).deepCopy() : Json.object();
        mergeInto(result, patch);
        return result;
    }

    /**
     * {@link #mergePatch} into {@code target} itself, for a caller that owns it (an update's copy of the stored object):
     * the patched object is {@code target}, unless the patch is not an object and replaces it.
     */
    public static JsonNode mergePatchInPlace(ObjectNode target, JsonNode patch) {
        if (!patch.isObject()) {
            return patch.deepCopy();
        }
        mergeInto(target, patch);
        return target;
    }

    /** Merges an object patch into {@code result}, which this merge owns down to every object it changes. */
    private static void mergeInto(ObjectNode result, JsonNode patch) {
        for (Iterator<Map.Entry<String, JsonNode>> it = patch.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            JsonNode value = entry.getValue();
            if (value.isNull()) {
                result.remove(entry.getKey());
            } else if (value.isObject()) {
                JsonNode existing = result.get(entry.getKey());
                ObjectNode merged = existing != null && existing.isObject() ? (ObjectNode) existing : Json.object();
                mergeInto(merged, value);
                result.set(entry.getKey(), merged);
            } else {
                result.set(entry.getKey(), value.deepCopy());
            }
        }
    }

    /** RFC 6902: applies the operations in order to a copy; a failing operation fails the whole patch. */
    public static JsonNode jsonPatch(JsonNode target, JsonNode operations) {
        if (!operations.isArray()) {
            throw StatusException.badRequest("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
        }
        JsonNode document = target.deepCopy();
        for (JsonNode operation : operations) {
            String op = operation.path("op").asText("");
            String path = operation.path("path").asText(null);
            if (path == null) {
                throw invalid("unable to get path for operation " + op);
            }
            document = switch (op) {
                case "add" -> add(document, path, value(operation, op));
                case "remove" -> remove(document, path);
                case "replace" -> add(remove(document, path), path, value(operation, op));
                case "move" -> {
                    String from = operation.path("from").asText();
                    JsonNode moved = get(document, from);
                    yield add(remove(document, from), path, moved);
                }
                case "copy" -> add(document, path, get(document, operation.path("from").asText()).deepCopy());
                case "test" -> {
                    JsonNode actual = get(document, path);
                    if (!actual.equals(value(operation, op))) {
                        throw invalid("testing value " + path + " failed: test failed");
                    }
                    yield document;
                }
                default -> throw invalid("Unexpected kind: " + op);
            };
        }
        return document;
    }

    private static JsonNode value(JsonNode operation, String op) {
        if (!operation.has("value")) {
            throw invalid("missing value for operation " + op);
        }
        return operation.get("value").deepCopy();
    }

    private static List<String> tokens(String pointer) {
        if (pointer.isEmpty()) {
            return List.of();
        }
        if (!pointer.startsWith("/")) {
            throw invalid("invalid JSON pointer: " + pointer);
        }
        List<String> tokens = new ArrayList<>();
        for (String raw : pointer.substring(1).split("/", -1)) {
            tokens.add(raw.replace("~1", "/").replace("~0", "~"));
        }
        return tokens;
    }

    private static JsonNode get(JsonNode document, String pointer) {
        JsonNode current = document;
        for (String token : tokens(pointer)) {
            current = child(current, token, pointer);
        }
        return current;
    }

    private static JsonNode child(JsonNode parent, String token, String pointer) {
        JsonNode next = null;
        if (parent.isObject()) {
            next = parent.get(token);
        } else if (parent.isArray()) {
            int index = index(token, parent.size() - 1, pointer);
            next = parent.get(index);
        }
        if (next == null) {
            throw invalid("doc is missing path: \"" + pointer + "\": missing value");
        }
        return next;
    }

    private static int index(String token, int max, String pointer) {
        try {
            int index = Integer.parseInt(token);
            if (index < 0 || index > max) {
                throw invalid("unable to access invalid index: " + index + ": invalid index referenced");
            }
            return index;
        } catch (NumberFormatException e) {
            throw invalid("doc is missing path: \"" + pointer + "\": missing value");
        }
    }

    private static JsonNode add(JsonNode document, String pointer, JsonNode value) {
        List<String> tokens = tokens(pointer);
        if (tokens.isEmpty()) {
            return value;
        }
        JsonNode parent = document;
        for (String token : tokens.subList(0, tokens.size() - 1)) {
            parent = child(parent, token, pointer);
        }
        String last = tokens.get(tokens.size() - 1);
        if (parent instanceof ObjectNode object) {
            object.set(last, value);
        } else if (parent instanceof ArrayNode array) {
            if (last.equals("-")) {
                array.add(value);
            } else {
                array.insert(index(last, array.size(), pointer), value);
            }
        } else {
            throw invalid("doc is missing path: \"" + pointer + "\": missing value");
        }
        return document;
    }

    private static JsonNode remove(JsonNode document, String pointer) {
        List<String> tokens = tokens(pointer);
        if (tokens.isEmpty()) {
            throw invalid("unable to remove the whole document");
        }
        JsonNode parent = document;
        for (String token : tokens.subList(0, tokens.size() - 1)) {
            parent = child(parent, token, pointer);
        }
        String last = tokens.get(tokens.size() - 1);
        if (parent instanceof ObjectNode object && object.has(last)) {
            object.remove(last);
        } else if (parent instanceof ArrayNode array) {
            array.remove(index(last, array.size() - 1, pointer));
        } else {
            throw invalid("Unable to remove nonexistent key: " + last + ": missing value");
        }
        return document;
    }

    private static StatusException invalid(String message) {
        return new StatusException(StatusReason.INVALID, 422, "the server rejected our request due to an error in our request: " + message, null, null, null, List.of(), null);
    }
}
