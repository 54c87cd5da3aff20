package io.k4j.apiserver.registry.generic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;

/**
 * The checks of {@code metadata} every resource shares, as upstream's {@code ValidateObjectMeta} and
 * {@code ValidateObjectMetaUpdate}: name, namespace, labels, annotations, finalizers and immutable system
 * fields. Thread-safe.
 */
final class MetadataValidation {
    private static final int TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

    private MetadataValidation() {}

    static FieldErrors validate(ObjectNode object, boolean namespaced) {
        FieldErrors errors = new FieldErrors();
        String name = Json.metadataText(object, "name");
        String generateName = Json.metadataText(object, "generateName");
        if (name.isEmpty()) {
            errors.add(FieldError.required("metadata.name", generateName.isEmpty() ? "name or generateName is required" : ""));
        } else if (!LabelSyntax.isDnsSubdomain(name)) {
            errors.add(FieldError.invalid("metadata.name", name, LabelSyntax.DNS_SUBDOMAIN_MESSAGE));
        }
        String namespace = Json.metadataText(object, "namespace");
        if (namespaced) {
            if (namespace.isEmpty()) {
                errors.add(FieldError.required("metadata.namespace", ""));
            } else if (!LabelSyntax.isDnsLabel(namespace)) {
                errors.add(FieldError.invalid("metadata.namespace", namespace, LabelSyntax.DNS_LABEL_MESSAGE));
            }
        } else if (!namespace.isEmpty()) {
            errors.add(FieldError.forbidden("metadata.namespace", "not allowed on this type"));
        }
        for (Map.Entry<String, String> label : Json.metadataMap(object, "labels").entrySet()) {
            String keyProblem = LabelSyntax.qualifiedNameMessage(label.getKey());
            if (keyProblem != null) {
                errors.add(FieldError.invalid("metadata.labels", label.getKey(), keyProblem));
            }
            if (!LabelSyntax.isLabelValue(label.getValue())) {
                errors.add(FieldError.invalid("metadata.labels", label.getValue(), LabelSyntax.LABEL_VALUE_MESSAGE));
            }
        }
        long annotationBytes = 0;
        for (Map.Entry<String, String> annotation : Json.metadataMap(object, "annotations").entrySet()) {
            String keyProblem = LabelSyntax.qualifiedNameMessage(annotation.getKey().toLowerCase(java.util.Locale.ROOT));
            if (keyProblem != null) {
                errors.add(FieldError.invalid("metadata.annotations", annotation.getKey(), keyProblem));
            }
            annotationBytes += annotation.getKey().getBytes(StandardCharsets.UTF_8).length + annotation.getValue().getBytes(StandardCharsets.UTF_8).length;
        }
        if (annotationBytes > TOTAL_ANNOTATION_SIZE_LIMIT) {
            errors.add(new FieldError(FieldError.Type.TOO_LONG, "metadata.annotations", "", "may not be more than " + TOTAL_ANNOTATION_SIZE_LIMIT + " bytes"));
        }
        JsonNode finalizers = object.path("metadata").path("finalizers");
        if (finalizers.isArray()) {
            int index = 0;
            for (Iterator<JsonNode> it = finalizers.elements(); it.hasNext(); index++) {
                String finalizer = it.next().asText();
                String problem = LabelSyntax.qualifiedNameMessage(finalizer);
                if (problem != null) {
                    errors.add(FieldError.invalid("metadata.finalizers[" + index + "]", finalizer, problem));
                }
            }
        }
        JsonNode generation = object.path("metadata").path("generation");
        if (generation.isNumber() && generation.asLong() < 0) {
            errors.add(FieldError.invalid("metadata.generation", generation.asLong(), "must be greater than or equal to 0"));
        }
        return errors;
    }

    static FieldErrors validateUpdate(ObjectNode newObject, ObjectNode oldObject, boolean namespaced) {
        FieldErrors errors = validate(newObject, namespaced);
        for (String field : new String[] {"name", "namespace", "uid", "creationTimestamp"}) {
            String newValue = Json.metadataText(newObject, field);
            String oldValue = Json.metadataText(oldObject, field);
            if (!newValue.equals(oldValue)) {
                errors.add(FieldError.invalid("metadata." + field, newValue, "field is immutable"));
            }
        }
        long newGeneration = newObject.path("metadata").path("generation").asLong(0);
        long oldGeneration = oldObject.path("metadata").path("generation").asLong(0);
        if (newGeneration < oldGeneration) {
            errors.add(FieldError.invalid("metadata.generation", newGeneration, "must not be decremented"));
        }
        return errors;
    }
}
