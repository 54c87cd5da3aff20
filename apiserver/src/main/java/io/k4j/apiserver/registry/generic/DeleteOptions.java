package io.k4j.apiserver.registry.generic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;

/**
 * The options of a delete, as upstream's {@code metav1.DeleteOptions}.
 *
 * @param gracePeriodSeconds requested grace period, or null
 * @param preconditionUid the uid the object must have, or null
 * @param preconditionResourceVersion the resourceVersion the object must have, or null
 * @param propagationPolicy {@code Orphan}, {@code Background}, {@code Foreground} or null
 * @param orphanDependents the deprecated flag, or null
 */
public record DeleteOptions(Long gracePeriodSeconds, String preconditionUid, String preconditionResourceVersion, String propagationPolicy, Boolean orphanDependents) {
    public static final DeleteOptions DEFAULT = new DeleteOptions(null, null, null, null, null);
    public static final String ORPHAN = "Orphan";
    public static final String BACKGROUND = "Background";
    public static final String FOREGROUND = "Foreground";

    public DeleteOptions {
        if (propagationPolicy != null && !propagationPolicy.equals(ORPHAN) && !propagationPolicy.equals(BACKGROUND) && !propagationPolicy.equals(FOREGROUND)) {
            throw StatusException.badRequest("propagationPolicy: Unsupported value: \"" + propagationPolicy + "\": supported values: \"Foreground\", \"Background\", \"Orphan\"");
        }
        if (propagationPolicy != null && orphanDependents != null) {
            throw StatusException.badRequest("propagationPolicy: Invalid value: \"" + propagationPolicy + "\": orphanDependents and deletionPropagation cannot be both set");
        }
        if (gracePeriodSeconds != null && gracePeriodSeconds < 0) {
            gracePeriodSeconds = 1L;
        }
    }

    /** Reads a {@code DeleteOptions} body; fields given as query parameters are merged by the caller. */
    public static DeleteOptions fromJson(ObjectNode body) {
        JsonNode preconditions = body.path("preconditions");
        return new DeleteOptions(
                body.hasNonNull("gracePeriodSeconds") ? body.get("gracePeriodSeconds").asLong() : null,
                preconditions.hasNonNull("uid") ? preconditions.get("uid").asText() : null,
                preconditions.hasNonNull("resourceVersion") ? preconditions.get("resourceVersion").asText() : null,
                body.hasNonNull("propagationPolicy") ? body.get("propagationPolicy").asText() : null,
                body.hasNonNull("orphanDependents") ? body.get("orphanDependents").asBoolean() : null);
    }

    /** The policy that applies: Orphan when the deprecated flag asks for it. */
    public String effectivePolicy() {
        if (propagationPolicy != null) {
            return propagationPolicy;
        }
        if (orphanDependents != null) {
            return orphanDependents ? ORPHAN : BACKGROUND;
        }
        return null;
    }
}
