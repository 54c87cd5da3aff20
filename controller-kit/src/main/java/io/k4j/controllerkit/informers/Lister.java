package io.k4j.controllerkit.informers;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.Indexer;
import java.util.List;
import java.util.Optional;

/**
 * Read-only view of an informer's cache, as client-go's listers. Objects returned are the cache's own: callers must
 * copy before changing them. Thread-safe.
 */
public final class Lister<T extends HasMetadata> {
    private final Indexer<T> indexer;

    public Lister(Indexer<T> indexer) {
        this.indexer = requireNonNull(indexer, "indexer is null");
    }

    /** A namespaced object by namespace and name. */
    public Optional<T> get(String namespace, String name) {
        return Optional.ofNullable(indexer.getByKey(ObjectKeys.key(namespace, name)));
    }

    /** A cluster-scoped object by name. */
    public Optional<T> get(String name) {
        return Optional.ofNullable(indexer.getByKey(name));
    }

    /** An object by its work-queue key ({@code namespace/name} or {@code name}). */
    public Optional<T> getByKey(String key) {
        return Optional.ofNullable(indexer.getByKey(key));
    }

    /** Every object in {@code namespace}. */
    public List<T> list(String namespace) {
        return indexer.byIndex(Cache.NAMESPACE_INDEX, namespace);
    }

    /** Every object. */
    public List<T> list() {
        return indexer.list();
    }

    /** Objects under a custom index added with {@code SharedIndexInformer.addIndexers}. */
    public List<T> byIndex(String indexName, String indexedValue) {
        return indexer.byIndex(indexName, indexedValue);
    }
}
