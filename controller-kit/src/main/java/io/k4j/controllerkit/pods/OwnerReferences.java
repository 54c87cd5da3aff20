package io.k4j.controllerkit.pods;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.k4j.controllerkit.informers.ObjectKeys;
import java.util.List;
import java.util.Optional;

/** Controller references as upstream's {@code metav1.GetControllerOf} and {@code NewControllerRef}. */
public final class OwnerReferences {
    private OwnerReferences() {}

    /** The owner reference with {@code controller: true}, if any. */
    public static Optional<OwnerReference> controllerOf(HasMetadata object) {
        List<OwnerReference> references = object.getMetadata().getOwnerReferences();
        if (references == null) {
            return Optional.empty();
        }
        return references.stream().filter(reference -> Boolean.TRUE.equals(reference.getController())).findFirst();
    }

    /**
     * The work-queue key of {@code object}'s controller when that is of {@code kind}: how a controller finds the owner
     * to sync when one of its dependents (pod, revision, job) changes.
     */
    public static Optional<String> controllerKey(HasMetadata object, String kind) {
        return controllerOf(object)
                .filter(reference -> kind.equals(reference.getKind()))
                .map(reference -> ObjectKeys.key(object.getMetadata().getNamespace(), reference.getName()));
    }

    /** True when {@code object}'s controller is the object with {@code ownerUid}. */
    public static boolean isControlledBy(HasMetadata object, String ownerUid) {
        return controllerOf(object).map(reference -> ownerUid.equals(reference.getUid())).orElse(false);
    }

    /**
     * A controller reference to {@code owner} of the given type, with {@code blockOwnerDeletion} so foreground deletion
     * of the owner waits for the dependent.
     */
    public static OwnerReference newControllerRef(HasMetadata owner, String apiVersion, String kind) {
        return new OwnerReferenceBuilder()
                .withApiVersion(apiVersion)
                .withKind(kind)
                .withName(owner.getMetadata().getName())
                .withUid(owner.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build();
    }
}
