package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

import io.k4j.api.resource.GroupVersionResource;
import io.k4j.storage.KeyValueStore;
import java.time.Duration;
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
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The generic stores of every served resource, by group, version and resource. Thread-safe once built.
 */
public final class StoreRegistry implements Registry, AutoCloseable {
    /**
     * How often the watch caches are told how far storage has got (etcd's progress notifications): a quiet resource's
     * lists and bookmarks carry a revision at most this old, well inside the five minutes of history compaction keeps
     * for continue tokens and exact reads.
     */
    static final Duration WATCH_PROGRESS_INTERVAL = Duration.ofSeconds(5);

    private static final Logger LOG = LoggerFactory.getLogger(StoreRegistry.class);

    private final Map<GroupVersionResource, GenericStore> stores;
    private final KeyValueStore storage;
    private final ScheduledExecutorService progressRequests = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("watch-progress").daemon().factory());

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
        this.storage = storage;
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
        progressRequests.scheduleWithFixedDelay(this::requestWatchProgress, WATCH_PROGRESS_INTERVAL.toMillis(), WATCH_PROGRESS_INTERVAL.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    private void requestWatchProgress() {
        try {
            storage.requestWatchProgress();
        } catch (RuntimeException e) {
            LOG.debug("asking storage for watch progress failed; asking again in {}", WATCH_PROGRESS_INTERVAL, e);
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
        progressRequests.shutdownNow();
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
