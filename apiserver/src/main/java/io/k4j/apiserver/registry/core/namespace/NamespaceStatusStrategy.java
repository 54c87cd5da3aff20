package io.k4j.apiserver.registry.core.namespace;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.core.Trees;
import io.k4j.apiserver.registry.core.Updates;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.util.List;

/** The rules of {@code namespaces/status}: only status changes, and the phase must agree with the deletion timestamp. Thread-safe. */
public final class NamespaceStatusStrategy implements ResourceStrategy {
    private final NamespaceStrategy namespaceStrategy;

    public NamespaceStatusStrategy(NamespaceStrategy namespaceStrategy) {
        this.namespaceStrategy = requireNonNull(namespaceStrategy, "namespaceStrategy is null");
    }

    @Override
    public ResourceType type() {
        return namespaceStrategy.type();
    }

    @Override
    public void prepareForCreate(ObjectNode namespace) {
        namespaceStrategy.prepareForCreate(namespace);
    }

    @Override
    public void prepareForUpdate(ObjectNode newNamespace, ObjectNode oldNamespace) {
        Updates.copyField(oldNamespace, newNamespace, "spec");
    }

    @Override
    public FieldErrors validate(ObjectNode namespace) {
        return namespaceStrategy.validate(namespace);
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

    @Override
    public List<TableColumn> tableColumns() {
        return namespaceStrategy.tableColumns();
    }

    @Override
    public List<Object> tableRow(ObjectNode namespace) {
        return namespaceStrategy.tableRow(namespace);
    }
}
