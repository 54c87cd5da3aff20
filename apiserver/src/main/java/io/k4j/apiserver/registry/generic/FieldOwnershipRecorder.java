package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.apply.FieldManager;
import io.k4j.api.apply.FieldSet;
import io.k4j.api.apply.Shapes;
import io.k4j.api.resource.GroupVersionKind;
import io.k4j.api.schema.Definition;
import io.k4j.api.schema.Schemas;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Keeps {@code metadata.managedFields} of one resource's writes, as upstream's field manager does in its handlers:
 * creates and updates record what they change for their manager; server-side apply computes the object and its
 * managed fields itself. The schemas are only resolved on the first tracked write (they take a while to build).
 *
 * <p>Thread-safe.
 */
final class FieldOwnershipRecorder {
    private static final String STATUS = "status";
    private static final Set<String> KEPT_BY_STATUS_WRITES = Set.of(STATUS, "metadata", "apiVersion", "kind");

    private final GroupVersionKind kind;
    private final boolean hasStatusSubresource;
    private final InstantSource clock;
    private volatile FieldManager fieldManager;
    /** The target of each subresource written through (they never change; the status one takes a schema look-up). */
    private final ConcurrentMap<String, FieldManager.Target> targets = new ConcurrentHashMap<>();

    FieldOwnershipRecorder(GroupVersionKind kind, ResourceDefinition definition, InstantSource clock) {
        this.kind = requireNonNull(kind, "kind is null");
        this.hasStatusSubresource = definition.subresourceStrategies().containsKey(STATUS);
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** Before a create's admission: records its fields for an updater, keeps an applier's, drops any otherwise. */
    void beforeCreate(ObjectNode object, OperationContext context) {
        switch (context.fieldOwnership()) {
            case OperationContext.FieldOwnership.Untracked untracked -> ObjectMetadata.of(object).remove("managedFields");
            case OperationContext.FieldOwnership.Updated updated -> fieldManager().update(null, object, target(""), updated.manager());
            case OperationContext.FieldOwnership.Applied applied -> { }
        }
    }

    /** After the strategy prepared an update (so fields it resets do not count as changed), before admission. */
    void afterPrepareForUpdate(ObjectNode current, ObjectNode updated, String subresource, OperationContext context) {
        if (context.fieldOwnership() instanceof OperationContext.FieldOwnership.Updated updater) {
            fieldManager().update(current, updated, target(subresource), updater.manager());
        }
    }

    ObjectNode apply(ObjectNode current, ObjectNode configuration, String subresource, String manager, boolean force) {
        return fieldManager().apply(current, configuration, target(subresource), manager, force);
    }

    /** Fields a write cannot change: status on the main resource when status is a subresource, the rest on status. */
    private FieldManager.Target target(String subresource) {
        FieldManager.Target target = targets.get(subresource);
        if (target == null) {
            target = targets.computeIfAbsent(subresource, this::newTarget);
        }
        return target;
    }

    private FieldManager.Target newTarget(String subresource) {
        if (subresource.isEmpty()) {
            return new FieldManager.Target(kind, "", hasStatusSubresource ? FieldManager.topLevelFields(STATUS) : new FieldSet());
        }
        List<String> reset = new ArrayList<>();
        if (subresource.equals(STATUS)) {
            Schemas.builtin().forKind(kind).map(Definition::fields).ifPresent(fields -> fields.keySet().stream()
                    .filter(name -> !KEPT_BY_STATUS_WRITES.contains(name))
                    .forEach(reset::add));
        }
        return new FieldManager.Target(kind, subresource, FieldManager.topLevelFields(reset.toArray(String[]::new)));
    }

    private FieldManager fieldManager() {
        FieldManager manager = fieldManager;
        if (manager == null) {
            manager = new FieldManager(Shapes.builtin(), clock);
            fieldManager = manager;
        }
        return manager;
    }
}
