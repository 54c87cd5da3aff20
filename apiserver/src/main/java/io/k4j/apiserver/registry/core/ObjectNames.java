package io.k4j.apiserver.registry.core;

import com.fasterxml.jackson.databind.JsonNode;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.NameValidation;
import io.k4j.api.validation.NameValidator;

/**
 * Name rules of resources whose names are stricter than a DNS subdomain (Namespace: DNS label, Service: RFC 1035
 * label). Stateless and thread-safe.
 *
 * <p>The generic store checks every {@code metadata.name} as a DNS subdomain. Upstream checks each resource's name
 * with that resource's rule only, so one bad name yields one error. To keep it one error here, the stricter rule
 * only reports when the store's subdomain check passed; a name that fails both shows the store's message. Once the
 * store validates names with a per-resource {@link NameValidator} (as {@code ObjectMetaValidation.validateCreate}
 * allows), these calls should go and the strategies should hand the store their validator instead.
 */
public final class ObjectNames {
    private ObjectNames() {}

    /** Errors of {@code rule} for the object's name, empty when the name is empty or not a DNS subdomain. */
    public static FieldErrors validateStricterName(JsonNode object, NameValidator rule) {
        FieldErrors errors = new FieldErrors();
        String name = Trees.text(object, "metadata", "name");
        if (name.isEmpty() || !NameValidation.isDns1123Subdomain(name).isEmpty()) {
            return errors;
        }
        for (String message : rule.validate(name, false)) {
            errors.add(FieldError.invalid("metadata.name", name, message));
        }
        return errors;
    }
}
