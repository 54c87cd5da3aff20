package io.k4j.apiserver.registry.core.namespace;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.core.Trees;
import io.k4j.apiserver.registry.core.Updates;
import io.k4j.apiserver.registry.generic.SubresourceStrategy;

/** The rules of {@code namespaces/status}: only status changes, and the phase must agree with the deletion timestamp. Thread-safe. */
public final class NamespaceStatusStrategy extends SubresourceStrategy {
    public NamespaceStatusStrategy(NamespaceStrategy namespaceStrategy) {
        super(namespaceStrategy);
    }

    @Override
    public void prepareForUpdate(ObjectNode newNamespace, ObjectNode oldNamespace) {
        Updates.copyField(oldNamespace, newNamespace, "spec");
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newNamespace, ObjectNode oldNamespace) {
        FieldErrors errors = new FieldErrors();
        String phase = Trees.text(newNamespace, "status", "phase");
        // "status.Phase" is upstream's spelling of the path.
        if (!Trees.has(newNamespace, "metadata", "deletionTimestamp")) {
            if (!phase.equals("Active")) {
                errors.add(FieldError.invalid("status.Phase", phase, "may only be 'Active' if `deletionTimestamp` is empty"));
            }
        } else if (!phase.equals("Terminating")) {
            errors.add(FieldError.invalid("status.Phase", phase, "may only be 'Terminating' if `deletionTimestamp` is not empty"));
        }
        return errors;
    }
}
