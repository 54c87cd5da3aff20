package io.k4j.api.patch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Codec;
import io.k4j.api.codec.DecodeException;
import io.k4j.api.codec.Json;
import io.k4j.api.errors.StatusException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * JSON merge patch (RFC 7386, {@code application/merge-patch+json}) with the behaviour of the library upstream's
 * apiserver uses ({@code evanphx/json-patch} v4): objects merge recursively, {@code null} deletes a member, any
 * other value (arrays included) replaces; {@code null} members of newly added objects are dropped, while
 * {@code null} elements of arrays are kept. Also creates the merge patch that turns one document into another.
 *
 * <p>Stateless and thread-safe; inputs are never modified.
 */
public final class MergePatch {
    /** Upstream's message for a merge patch body that is not a JSON object (or array). */
    public static final String BAD_PATCH = "Invalid JSON Patch";

    private MergePatch() {}

    /**
     * Applies a patch body.
     *
     * @throws StatusException 400 {@value #BAD_PATCH} when the body is not valid JSON or is {@code null} or a scalar
     */
    public static JsonNode apply(JsonNode document, byte[] patchBody) {
        JsonNode patch;
        try {
            patch = Codec.decodeJson(patchBody).value();
        } catch (DecodeException exception) {
            throw StatusException.badRequest(BAD_PATCH);
        }
        return apply(document, patch);
    }

    /**
     * Applies a parsed patch; returns a new document.
     *
     * @throws StatusException 400 {@value #BAD_PATCH} when the patch is {@code null} or a scalar
     */
    public static JsonNode apply(JsonNode document, JsonNode patch) {
        if (patch.isArray()) {
            // Upstream's library turns an array patch into the result itself.
            return pruneNulls(patch.deepCopy());
        }
        if (!patch.isObject()) {
            throw StatusException.badRequest(BAD_PATCH);
        }
        if (!document.isObject()) {
            return pruneNulls(patch.deepCopy());
        }
        ObjectNode result = (ObjectNode) document.deepCopy();
        mergeObjects(result, (ObjectNode) patch);
        return result;
    }

    private static void mergeObjects(ObjectNode target, ObjectNode patch) {
        for (Map.Entry<String, JsonNode> property : patch.properties()) {
            String key = property.getKey();
            JsonNode value = property.getValue();
            if (value.isNull()) {
                target.remove(key);
                continue;
            }
            JsonNode current = target.get(key);
            if (current == null || current.isNull() || !current.isObject()) {
                target.set(key, pruneNulls(value.deepCopy()));
            } else if (value.isObject()) {
                mergeObjects((ObjectNode) current, (ObjectNode) value);
            } else {
                // Replacing an object by a non-object keeps the value as given (upstream prunes only on the other paths).
                target.set(key, value.deepCopy());
            }
        }
    }

    /** Drops {@code null} members of objects, at any depth; {@code null} array elements stay. */
    private static JsonNode pruneNulls(JsonNode value) {
        if (value instanceof ObjectNode object) {
            List<String> nulls = new ArrayList<>();
            for (Map.Entry<String, JsonNode> property : object.properties()) {
                if (property.getValue().isNull()) {
                    nulls.add(property.getKey());
                } else {
                    pruneNulls(property.getValue());
                }
            }
            object.remove(nulls);
        } else if (value instanceof ArrayNode array) {
            for (JsonNode element : array) {
                pruneNulls(element);
            }
        }
        return value;
    }

    /**
     * The merge patch that turns {@code original} into {@code modified} (upstream's {@code CreateMergePatch}):
     * changed and added members with their new values, removed members as {@code null}, objects diffed
     * recursively, arrays and scalars replaced whole when different. Non-object documents give {@code modified}.
     */
    public static JsonNode create(JsonNode original, JsonNode modified) {
        if (!original.isObject() || !modified.isObject()) {
            return modified.deepCopy();
        }
        return diff((ObjectNode) original, (ObjectNode) modified);
    }

    private static ObjectNode diff(ObjectNode original, ObjectNode modified) {
        ObjectNode patch = Json.object();
        for (Map.Entry<String, JsonNode> property : modified.properties()) {
            String key = property.getKey();
            JsonNode newValue = property.getValue();
            JsonNode oldValue = original.get(key);
            if (oldValue == null || oldValue.getNodeType() != newValue.getNodeType()) {
                patch.set(key, newValue.deepCopy());
            } else if (newValue.isObject()) {
                ObjectNode nested = diff((ObjectNode) oldValue, (ObjectNode) newValue);
                if (!nested.isEmpty()) {
                    patch.set(key, nested);
                }
            } else if (!JsonEquality.equal(oldValue, newValue)) {
                patch.set(key, newValue.deepCopy());
            }
        }
        for (Iterator<String> names = original.fieldNames(); names.hasNext(); ) {
            String key = names.next();
            if (!modified.has(key)) {
                patch.putNull(key);
            }
        }
        return patch;
    }
}
