package io.k4j.apiserver.registry.core.namespace;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.core.Updates;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.util.List;

/**
 * The rules of {@code namespaces/finalize}: the namespace controller's way to change {@code spec.finalizers}, which
 * the main resource keeps fixed; status is kept. Thread-safe.
 */
public final class NamespaceFinalizeStrategy implements ResourceStrategy {
    private final NamespaceStrategy namespaceStrategy;

    public NamespaceFinalizeStrategy(NamespaceStrategy namespaceStrategy) {
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
        Updates.copyField(oldNamespace, newNamespace, "status");
    }

    @Override
    public FieldErrors validate(ObjectNode namespace) {
        return namespaceStrategy.validate(namespace);
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newNamespace, ObjectNode oldNamespace) {
        return NamespaceStrategy.validateFinalizers(newNamespace);
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
