package io.k4j.controllers.namespace;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Namespace;
import io.k4j.controllers.dynamic.ApiResource;
import io.k4j.controllers.dynamic.ResourceDiscovery;
import java.util.List;

/**
 * What the namespace controller does through the API: discover namespaced resources, delete and list their objects,
 * and update the namespace's status and finalizers. Implementations are thread-safe.
 */
public interface NamespaceClient {
    /** The preferred version of every resource, with the group versions that failed to answer. */
    ResourceDiscovery.Discovered discover();

    /** Deletes every object of {@code resource} in {@code namespace} with one request. */
    void deleteCollection(ApiResource resource, String namespace);

    /** Deletes one object; a missing object is no error. */
    void delete(ApiResource resource, String namespace, String name);

    List<GenericKubernetesResource> list(ApiResource resource, String namespace);

    /** Writes {@code namespace}'s status through {@code namespaces/status}; returns the stored namespace. */
    Namespace updateStatus(Namespace namespace);

    /** Writes {@code namespace}'s {@code spec.finalizers} through {@code namespaces/finalize}. */
    void finalizeNamespace(Namespace namespace);
}
