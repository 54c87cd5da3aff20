package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.validation.FieldErrors;

/**
 * The {@code status} subresource of a resource, as upstream's {@code *StatusStrategy}: writes change only the
 * status (the spec and the generation, and for apps workloads the labels, come from the stored object) and are
 * validated by the resource's status rules; everything else is the main strategy's. Thread-safe when its parts
 * are.
 */
public final class StatusStrategy extends SubresourceStrategy {
    /** The status rules of one resource. */
    @FunctionalInterface
    public interface StatusValidation {
        FieldErrors validateUpdate(ObjectNode newObject, ObjectNode oldObject);
    }

    private final StatusValidation validation;
    private final boolean keepLabels;

    /**
     * @param main the resource's strategy
     * @param validation the status rules
     * @param keepLabels whether labels are kept from the stored object too (upstream's apps workloads)
     */
    public StatusStrategy(ResourceStrategy main, StatusValidation validation, boolean keepLabels) {
        super(main);
        this.validation = requireNonNull(validation, "validation is null");
        this.keepLabels = keepLabels;
    }

    @Override
    public void prepareForUpdate(ObjectNode newObject, ObjectNode oldObject) {
        JsonNode spec = oldObject.get("spec");
        if (spec == null) {
            newObject.remove("spec");
        } else {
            newObject.set("spec", spec.deepCopy());
        }
        keepMetadataField(oldObject, newObject, "generation");
        if (keepLabels) {
            keepMetadataField(oldObject, newObject, "labels");
        }
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newObject, ObjectNode oldObject) {
        return validation.validateUpdate(newObject, oldObject);
    }

    /** Replaces {@code metadata.<field>} of {@code target} with a copy of the stored one, or removes it when none is stored. */
    private static void keepMetadataField(ObjectNode stored, ObjectNode target, String field) {
        JsonNode value = stored.path("metadata").get(field);
        if (value != null) {
            ObjectMetadata.of(target).set(field, value.deepCopy());
        } else if (target.get("metadata") instanceof ObjectNode metadata) {
            metadata.remove(field);
        }
    }
}
