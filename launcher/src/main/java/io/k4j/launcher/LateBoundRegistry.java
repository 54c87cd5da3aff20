package io.k4j.launcher;

import io.k4j.api.resource.GroupVersionResource;
import io.k4j.apiserver.registry.generic.ObjectStore;
import io.k4j.apiserver.registry.generic.Registry;
import java.util.Optional;

/**
 * A {@link Registry} handed to admission plugins, authorizers and strategies before the apiserver that owns the
 * stores exists; the launcher binds it once the apiserver is built and before it serves requests. Thread-safe.
 */
final class LateBoundRegistry implements Registry {
    private volatile Registry delegate;

    void bind(Registry registry) {
        if (delegate != null) {
            throw new IllegalStateException("registry already bound");
        }
        delegate = registry;
    }

    @Override
    public Optional<ObjectStore> store(GroupVersionResource resource) {
        Registry bound = delegate;
        if (bound == null) {
            throw new IllegalStateException("the registry is used before the apiserver was built");
        }
        return bound.store(resource);
    }
}
