package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

import io.k4j.api.resource.GroupVersionResource;
import io.k4j.storage.KeyValueStore;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * The generic stores of every served resource, by group, version and resource. Thread-safe once built.
 */
public final class StoreRegistry implements Registry, AutoCloseable {
    private final Map<GroupVersionResource, GenericStore> stores;

    /**
     * @param wrapStorage wraps the storage of each resource (e.g. to measure storage calls per resource)
     */
    public StoreRegistry(List<ResourceDefinition> definitions, KeyValueStore storage, AdmissionChain admission, InstantSource clock, int watchCacheCapacity,
            BiFunction<KeyValueStore, GroupVersionResource, KeyValueStore> wrapStorage) {
        requireNonNull(definitions, "definitions is null");
        Map<GroupVersionResource, GenericStore> byResource = new LinkedHashMap<>();
        for (ResourceDefinition definition : definitions) {
            GroupVersionResource resource = definition.strategy().type().gvr();
            KeyValueStore resourceStorage = wrapStorage.apply(storage, resource);
            if (byResource.put(resource, new GenericStore(definition, resourceStorage, admission, clock, watchCacheCapacity)) != null) {
                throw new IllegalArgumentException("resource defined twice: " + resource);
            }
        }
        this.stores = Map.copyOf(byResource);
    }

    public StoreRegistry(List<ResourceDefinition> definitions, KeyValueStore storage, AdmissionChain admission, InstantSource clock, int watchCacheCapacity) {
        this(definitions, storage, admission, clock, watchCacheCapacity, (kv, resource) -> kv);
    }

    /** Loads every watch cache. */
    public void start() {
        for (GenericStore store : stores.values()) {
            store.start();
        }
    }

    @Override
    public Optional<ObjectStore> store(GroupVersionResource resource) {
        return Optional.ofNullable(stores.get(resource));
    }

    public Optional<GenericStore> genericStore(GroupVersionResource resource) {
        return Optional.ofNullable(stores.get(resource));
    }

    public Collection<GenericStore> all() {
        return stores.values();
    }

    @Override
    public void close() {
        List<RuntimeException> failures = new ArrayList<>();
        for (GenericStore store : stores.values()) {
            try {
                store.close();
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }
        if (!failures.isEmpty()) {
            throw failures.get(0);
        }
    }
}
