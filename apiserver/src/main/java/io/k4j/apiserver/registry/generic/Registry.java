package io.k4j.apiserver.registry.generic;

import io.k4j.api.resource.GroupVersionResource;
import java.util.Optional;

/** Finds the in-process {@link ObjectStore} of a served resource. Thread-safe. */
public interface Registry {
    Optional<ObjectStore> store(GroupVersionResource resource);

    /** The store of a resource that must be served; fails loudly otherwise. */
    default ObjectStore require(GroupVersionResource resource) {
        return store(resource).orElseThrow(() -> new IllegalStateException("resource is not served: " + resource));
    }
}
