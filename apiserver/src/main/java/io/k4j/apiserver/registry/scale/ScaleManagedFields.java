package io.k4j.apiserver.registry.scale;

import static java.util.Objects.requireNonNull;

import io.k4j.api.apply.FieldSet;
import io.k4j.api.apply.ManagedFields;
import io.k4j.api.apply.Manager;
import io.k4j.api.apply.PathElement;
import java.util.List;
import java.util.Map;

/**
 * Converts managed fields between a replicated workload and its {@code autoscaling/v1} Scale, as upstream's scale
 * handler: the Scale sees, for every manager owning the parent's {@code spec.replicas}, an entry owning the Scale's
 * {@code spec.replicas}; after a write to the Scale, the parent gets the Scale's managers of {@code spec.replicas}
 * back (a new one as an entry of the Scale's subresource owning only that field) and managers that lost it lose it
 * on the parent too. Both objects name the field {@code spec.replicas}; only the API versions differ.
 *
 * <p>Immutable and thread-safe.
 */
final class ScaleManagedFields {
    static final String SCALE_API_VERSION = "autoscaling/v1";
    static final List<PathElement> REPLICAS = List.of(new PathElement.Field("spec"), new PathElement.Field("replicas"));

    private final String parentApiVersion;

    /** @param parentApiVersion the parent's API version, e.g. {@code apps/v1} */
    ScaleManagedFields(String parentApiVersion) {
        this.parentApiVersion = requireNonNull(parentApiVersion, "parentApiVersion is null");
    }

    /** The Scale's managed fields: the parent's managers of {@code spec.replicas}, owning just that field. */
    ManagedFields toSubresource(ManagedFields parent) {
        ManagedFields scale = new ManagedFields();
        for (Map.Entry<Manager, ManagedFields.Entry> entry : parent.entries().entrySet()) {
            ManagedFields.Entry owned = entry.getValue();
            // entries of another version of the parent cannot be mapped; upstream skips them too
            if (owned.apiVersion().equals(parentApiVersion) && owned.fields().has(REPLICAS)) {
                // the identity stays the parent's, so that conflicts name the version the manager wrote, as upstream's
                scale.put(entry.getKey(), new ManagedFields.Entry(replicasOnly(), SCALE_API_VERSION, owned.time()));
            }
        }
        return scale;
    }

    /**
     * The parent's managed fields after a write to the Scale: an entry of the parent keeps what it had when its
     * manager still manages the Scale's replicas, else loses {@code spec.replicas} (and goes when nothing is left);
     * the Scale's other managers of the replicas are added, owning the parent's {@code spec.replicas}.
     */
    ManagedFields toParent(ManagedFields parent, ManagedFields scale) {
        ManagedFields result = new ManagedFields();
        ManagedFields remaining = new ManagedFields();
        scale.entries().forEach(remaining::put);
        for (Map.Entry<Manager, ManagedFields.Entry> entry : parent.entries().entrySet()) {
            ManagedFields.Entry owned = entry.getValue();
            if (!owned.apiVersion().equals(parentApiVersion)) {
                // as upstream: an entry of an unknown version is dropped by a write through the Scale
                continue;
            }
            if (!owned.fields().has(REPLICAS)) {
                result.put(entry.getKey(), owned);
            } else if (remaining.get(entry.getKey()).isPresent()) {
                result.put(entry.getKey(), owned);
                remaining.remove(entry.getKey());
            } else {
                FieldSet left = owned.fields().difference(replicasOnly());
                if (!left.isEmpty()) {
                    result.put(entry.getKey(), new ManagedFields.Entry(left, owned.apiVersion(), owned.time()));
                }
            }
        }
        for (Map.Entry<Manager, ManagedFields.Entry> entry : remaining.entries().entrySet()) {
            ManagedFields.Entry owned = entry.getValue();
            if (owned.fields().has(REPLICAS)) {
                result.put(withVersion(entry.getKey(), parentApiVersion), new ManagedFields.Entry(replicasOnly(), parentApiVersion, owned.time()));
            }
        }
        return result;
    }

    /** An update's identity carries the version it wrote: a new one through the Scale wrote the parent's replicas. */
    private static Manager withVersion(Manager manager, String apiVersion) {
        return manager.operation() == Manager.Operation.UPDATE
                ? new Manager(manager.name(), manager.operation(), apiVersion, manager.subresource())
                : manager;
    }

    private static FieldSet replicasOnly() {
        return FieldSet.of(List.of(REPLICAS));
    }
}
