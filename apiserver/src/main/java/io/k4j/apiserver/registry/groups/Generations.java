package io.k4j.apiserver.registry.groups;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * How resources with a spec and a status treat them on writes, as upstream's strategies do: the main resource
 * ignores status and bumps {@code metadata.generation} on spec changes; the status subresource ignores spec.
 * Stateless and thread-safe.
 */
public final class Generations {
    private Generations() {}

    /** Create: status is the controllers' to write, and the first generation is 1. */
    public static void clearStatusAndStartGeneration(ObjectNode object) {
        object.remove("status");
        Json.object(object, "metadata").put("generation", 1);
    }

    /** Update of the main resource: keeps the stored status; bumps the generation when the spec changed. */
    public static void keepStatusAndBumpGeneration(ObjectNode newObject, ObjectNode oldObject) {
        copyField(newObject, oldObject, "status");
        bumpGenerationIf(newObject, oldObject, !Json.semanticEquals(newObject.get("spec"), oldObject.get("spec")));
    }

    /** Sets the new generation to the old one, plus one when {@code changed}. */
    public static void bumpGenerationIf(ObjectNode newObject, ObjectNode oldObject, boolean changed) {
        long generation = Json.longValue(oldObject, "metadata", "generation");
        Json.object(newObject, "metadata").put("generation", changed ? generation + 1 : generation);
    }

    /** Replaces (or removes) a top-level field of the new object with the old object's. */
    public static void copyField(ObjectNode newObject, ObjectNode oldObject, String name) {
        JsonNode old = oldObject.get(name);
        if (old == null) {
            newObject.remove(name);
        } else {
            newObject.set(name, old.deepCopy());
        }
    }

    /** Replaces (or removes) {@code metadata.<name>} of the new object with the old object's. */
    public static void copyMetadataField(ObjectNode newObject, ObjectNode oldObject, String name) {
        JsonNode old = Json.at(oldObject, "metadata", name);
        ObjectNode metadata = Json.object(newObject, "metadata");
        if (old.isMissingNode()) {
            metadata.remove(name);
        } else {
            metadata.set(name, old.deepCopy());
        }
    }
}
