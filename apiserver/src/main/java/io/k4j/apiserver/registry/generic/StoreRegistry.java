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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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

    /**
     * Loads every watch cache, all at once: each load is independent of the others, and most of a load's time is
     * spent decoding (and, on a fresh JVM, loading classes), which spreads over the cores.
     */
    public void start() {
        List<Future<?>> loads = new ArrayList<>();
        int threads = Math.max(1, Math.min(stores.size(), 2 * Runtime.getRuntime().availableProcessors()));
        try (ExecutorService loaders = Executors.newFixedThreadPool(threads, Thread.ofPlatform().name("watch-cache-load-", 0).factory())) {
            for (GenericStore store : stores.values()) {
                loads.add(loaders.submit(store::start));
            }
            for (Future<?> load : loads) {
                try {
                    load.get();
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof RuntimeException runtime) {
                        throw runtime;
                    }
                    if (e.getCause() instanceof Error error) {
                        throw error;
                    }
                    throw new IllegalStateException("cannot load a watch cache", e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while loading the watch caches", e);
                }
            }
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
