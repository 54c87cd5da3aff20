package io.k4j.controllers.history;

import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.ControllerRevisionBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** A {@link RevisionStore} over an informer cache, as if the apiserver wrote and the informer saw at once. Thread-safe. */
public final class InMemoryRevisionStore implements RevisionStore {
    private final CacheImpl<ControllerRevision> cache;
    private final List<String> deleted = new ArrayList<>();

    public InMemoryRevisionStore(CacheImpl<ControllerRevision> cache) {
        this.cache = cache;
    }

    @Override
    public synchronized ControllerRevision create(ControllerRevision revision) {
        if (cache.getByKey(key(revision.getMetadata().getNamespace(), revision.getMetadata().getName())) != null) {
            throw new KubernetesClientException("already exists", 409, null);
        }
        ControllerRevision stored = new ControllerRevisionBuilder(revision).editMetadata().withUid(UUID.randomUUID().toString()).withResourceVersion("1").endMetadata().build();
        cache.put(stored);
        return stored;
    }

    @Override
    public synchronized Optional<ControllerRevision> get(String namespace, String name) {
        return Optional.ofNullable(cache.getByKey(key(namespace, name)));
    }

    @Override
    public synchronized ControllerRevision update(ControllerRevision revision) {
        cache.put(revision);
        return revision;
    }

    @Override
    public synchronized void delete(String namespace, String name) {
        ControllerRevision existing = cache.getByKey(key(namespace, name));
        if (existing != null) {
            cache.remove(existing);
            deleted.add(name);
        }
    }

    @Override
    public synchronized void patch(String namespace, String name, String strategicMergePatch) {
        throw new UnsupportedOperationException("adoption is not exercised by these tests");
    }

    public synchronized List<String> deleted() {
        return List.copyOf(deleted);
    }

    private static String key(String namespace, String name) {
        return namespace + "/" + name;
    }
}
