package io.k4j.apiserver.registry.core.namespace;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.core.Updates;
import io.k4j.apiserver.registry.generic.SubresourceStrategy;

/**
 * The rules of {@code namespaces/finalize}: the namespace controller's way to change {@code spec.finalizers}, which
 * the main resource keeps fixed; status is kept. Thread-safe.
 */
public final class NamespaceFinalizeStrategy extends SubresourceStrategy {
    public NamespaceFinalizeStrategy(NamespaceStrategy namespaceStrategy) {
        super(namespaceStrategy);
    }

    @Override
    public void prepareForUpdate(ObjectNode newNamespace, ObjectNode oldNamespace) {
        Updates.copyField(oldNamespace, newNamespace, "status");
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newNamespace, ObjectNode oldNamespace) {
        return NamespaceStrategy.validateFinalizers(newNamespace);
    }
}
