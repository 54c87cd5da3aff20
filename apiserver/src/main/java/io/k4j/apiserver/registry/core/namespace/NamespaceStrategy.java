package io.k4j.apiserver.registry.core.namespace;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.NameValidation;
import io.k4j.api.validation.NameValidator;
import io.k4j.apiserver.registry.core.CoreResources;
import io.k4j.apiserver.registry.core.Printing;
import io.k4j.apiserver.registry.core.Trees;
import io.k4j.apiserver.registry.core.Updates;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The rules of namespaces, as upstream's {@code namespaceStrategy}: a new namespace is Active and carries the
 * {@code kubernetes} finalizer, which only the {@code finalize} subresource may change later; names are DNS-1123
 * labels; the {@code kubernetes.io/metadata.name} label always holds the name. Thread-safe.
 */
public final class NamespaceStrategy implements ResourceStrategy {
    private static final ResourceType TYPE = CoreResources.type("namespaces");
    static final String METADATA_NAME_LABEL = "kubernetes.io/metadata.name";
    private static final Set<String> STANDARD_FINALIZERS = Set.of("kubernetes", "orphan", "foregroundDeletion");
    static final List<TableColumn> COLUMNS = List.of(
            TableColumn.nameColumn(),
            TableColumn.string("Status", "The status of the namespace"),
            TableColumn.ageColumn());

    private final InstantSource clock;

    public NamespaceStrategy(InstantSource clock) {
        this.clock = requireNonNull(clock, "clock is null");
    }

    @Override
    public ResourceType type() {
        return TYPE;
    }

    @Override
    public void applyDefaults(ObjectNode namespace) {
        String name = Trees.text(namespace, "metadata", "name");
        if (!name.isEmpty()) {
            Trees.object(namespace, "metadata", "labels").put(METADATA_NAME_LABEL, name);
        }
        if (Trees.text(namespace, "status", "phase").isEmpty()) {
            Trees.object(namespace, "status").put("phase", "Active");
        }
    }

    @Override
    public void prepareForCreate(ObjectNode namespace) {
        namespace.putObject("status").put("phase", "Active");
        // Required on create only: the namespace controller removes it over the object's life.
        ArrayNode finalizers = Trees.array(Trees.object(namespace, "spec"), "finalizers");
        boolean present = false;
        for (JsonNode finalizer : finalizers) {
            present |= finalizer.asText().equals("kubernetes");
        }
        if (!present) {
            finalizers.add("kubernetes");
        }
    }

    @Override
    public void prepareForUpdate(ObjectNode newNamespace, ObjectNode oldNamespace) {
        Updates.copyField(Trees.at(oldNamespace, "spec"), Trees.object(newNamespace, "spec"), "finalizers");
        Updates.copyField(oldNamespace, newNamespace, "status");
    }

    /**
     * A namespace stays, Terminating, until the namespace controller has emptied it and removed its
     * {@code spec.finalizers} through the {@code finalize} subresource, as upstream's namespace storage.
     */
    @Override
    public boolean hasPendingFinalization(ObjectNode namespace) {
        return !Trees.elements(namespace, "spec", "finalizers").isEmpty();
    }

    @Override
    public void prepareForDelete(ObjectNode namespace) {
        Trees.object(namespace, "status").put("phase", "Terminating");
    }

    /** Namespace names are DNS labels (upstream's {@code ValidateNamespaceName}); the store checks them with it. */
    @Override
    public NameValidator nameValidator() {
        return NameValidator.DNS_LABEL;
    }

    @Override
    public FieldErrors validate(ObjectNode namespace) {
        return validateFinalizers(namespace);
    }

    static FieldErrors validateFinalizers(JsonNode namespace) {
        FieldErrors errors = new FieldErrors();
        for (JsonNode finalizer : Trees.elements(namespace, "spec", "finalizers")) {
            String value = finalizer.asText();
            List<String> messages = NameValidation.isQualifiedName(value);
            messages.forEach(message -> errors.add(FieldError.invalid("spec.finalizers", value, message)));
            if (messages.isEmpty() && !value.contains("/") && !STANDARD_FINALIZERS.contains(value)) {
                errors.add(FieldError.invalid("spec.finalizers", value, "name is neither a standard finalizer name nor is it fully qualified"));
            }
        }
        return errors;
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newNamespace, ObjectNode oldNamespace) {
        return validate(newNamespace);
    }

    @Override
    public Map<String, String> selectableFields(ObjectNode namespace) {
        // Upstream also accepts the bare "name" field, kept for backward compatibility.
        return Map.of("status.phase", Trees.text(namespace, "status", "phase"), "name", Trees.text(namespace, "metadata", "name"));
    }

    @Override
    public List<TableColumn> tableColumns() {
        return COLUMNS;
    }

    @Override
    public List<Object> tableRow(ObjectNode namespace) {
        return List.of(
                Trees.text(namespace, "metadata", "name"),
                Trees.text(namespace, "status", "phase"),
                Printing.since(Trees.at(namespace, "metadata", "creationTimestamp"), clock.instant()));
    }
}
