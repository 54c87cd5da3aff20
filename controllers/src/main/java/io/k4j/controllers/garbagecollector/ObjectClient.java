package io.k4j.controllers.garbagecollector;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.k4j.controllers.dynamic.ApiResource;
import java.util.List;
import java.util.Optional;

/**
 * The garbage collector's reads and writes of arbitrary objects, always against the API (never a cache), so a
 * decision to delete rests on the live state. Writes carry the resourceVersion of the metadata they were computed
 * from and fail with a 409 {@code KubernetesClientException} when the object changed meanwhile. Implementations are
 * thread-safe.
 */
public interface ObjectClient {
    /** The object's current metadata, or empty when it does not exist. */
    Optional<ObjectMeta> get(ApiResource resource, String namespace, String name);

    /**
     * Deletes the object {@code latest} describes, with its uid and resourceVersion as preconditions and the given
     * propagation policy ({@code Background}, {@code Foreground} or {@code Orphan}); a missing object is no error.
     */
    void delete(ApiResource resource, ObjectMeta latest, String propagationPolicy);

    /** Replaces {@code metadata.ownerReferences} of the object {@code latest} describes. */
    void setOwnerReferences(ApiResource resource, ObjectMeta latest, List<OwnerReference> ownerReferences);

    /** Replaces {@code metadata.finalizers} of the object {@code latest} describes. */
    void setFinalizers(ApiResource resource, ObjectMeta latest, List<String> finalizers);
}
