package io.k4j.controllers.garbagecollector;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import java.util.List;

/**
 * What the garbage collector keeps of an object an informer delivered: identity, owner references and the deletion
 * state (upstream keeps the same through metadata-only informers).
 *
 * @param beingDeleted whether {@code metadata.deletionTimestamp} is set
 * @param finalizers {@code metadata.finalizers}
 */
public record ObservedObject(ObjectIdentity identity, List<OwnerReference> owners, boolean beingDeleted, List<String> finalizers) {
    static final String ORPHAN_FINALIZER = "orphan";
    static final String FOREGROUND_FINALIZER = "foregroundDeletion";

    public ObservedObject {
        requireNonNull(identity, "identity is null");
        owners = List.copyOf(requireNonNull(owners, "owners is null"));
        finalizers = List.copyOf(requireNonNull(finalizers, "finalizers is null"));
    }

    /** The observed form of an object's metadata, for a resource of {@code apiVersion} and {@code kind}. */
    public static ObservedObject of(String apiVersion, String kind, ObjectMeta metadata) {
        String namespace = metadata.getNamespace() == null ? "" : metadata.getNamespace();
        ObjectIdentity identity = new ObjectIdentity(apiVersion, kind, namespace, metadata.getName(), metadata.getUid());
        List<OwnerReference> owners = metadata.getOwnerReferences() == null ? List.of() : metadata.getOwnerReferences().stream()
                .filter(reference -> reference.getUid() != null && reference.getName() != null && reference.getKind() != null && reference.getApiVersion() != null)
                .toList();
        List<String> finalizers = metadata.getFinalizers() == null ? List.of() : metadata.getFinalizers();
        return new ObservedObject(identity, owners, metadata.getDeletionTimestamp() != null, finalizers);
    }

    /** Being deleted with the orphan finalizer: its dependents lose their references to it first. */
    boolean orphaning() {
        return beingDeleted && finalizers.contains(ORPHAN_FINALIZER);
    }

    /** Being deleted in the foreground: its dependents go first. */
    boolean deletingDependents() {
        return beingDeleted && finalizers.contains(FOREGROUND_FINALIZER);
    }
}
