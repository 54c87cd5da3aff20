package io.k4j.apiserver.registry.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;

/**
 * The recurring steps of upstream's PrepareForCreate/PrepareForUpdate: main resources ignore status, status
 * subresources ignore spec, and {@code metadata.generation} counts spec changes. Stateless and thread-safe.
 */
public final class Updates {
    private Updates() {}

    /** Replaces {@code field} of {@code target} with a copy of the one in {@code source}, removing it when absent there. */
    public static void copyField(JsonNode source, ObjectNode target, String field) {
        JsonNode value = source.get(field);
        if (value == null) {
            target.remove(field);
        } else {
            target.set(field, value.deepCopy());
        }
    }

    /** Sets {@code metadata.generation} to 1, as on create. */
    public static void initialGeneration(ObjectNode object) {
        Trees.object(object, "metadata").put("generation", 1);
    }

    /** Carries the old generation over, one higher when {@code field} (usually {@code spec}) changed. */
    public static void bumpGenerationIfChanged(ObjectNode newObject, JsonNode oldObject, String field) {
        long generation = Trees.integer(oldObject, "metadata", "generation");
        if (!Trees.sameValue(newObject.get(field), oldObject.get(field))) {
            generation++;
        }
        Trees.object(newObject, "metadata").put("generation", generation);
    }

    /** Keeps the old generation, for status updates. */
    public static void keepGeneration(ObjectNode newObject, JsonNode oldObject) {
        if (Trees.has(oldObject, "metadata", "generation")) {
            Trees.object(newObject, "metadata").put("generation", Trees.integer(oldObject, "metadata", "generation"));
        }
    }

    /** Upstream's {@code ValidateImmutableField}: {@code Invalid: <new>: field is immutable} when the values differ. */
    public static void immutable(JsonNode newValue, JsonNode oldValue, String path, FieldErrors errors) {
        if (!Trees.sameValue(newValue, oldValue)) {
            Object shown = newValue == null || newValue.isMissingNode() || newValue.isNull()
                    ? NullNode.getInstance()
                    : newValue.isTextual() ? newValue.asText() : newValue;
            errors.add(FieldError.invalid(path, shown, "field is immutable"));
        }
    }
}
