package io.k4j.controllerkit.informers;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One shared informer per resource type over all namespaces, as client-go's {@code SharedInformerFactory}: every
 * controller that watches pods shares one list+watch and one cache. Register informers (and handlers) first, then
 * {@link #start()}, then {@link #waitForCacheSync}. The caches keep objects without their managedFields
 * ({@link ManagedFieldsStrippingStore}). Thread-safe.
 */
public final class InformerFactory implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger("informers");

    private final KubernetesClient client;
    private final Map<Class<?>, SharedIndexInformer<?>> informers = new LinkedHashMap<>();
    private final List<CompletableFuture<Void>> started = new ArrayList<>();

    public InformerFactory(KubernetesClient client) {
        this.client = requireNonNull(client, "client is null");
    }

    public KubernetesClient client() {
        return client;
    }

    /** The shared informer of {@code type}, created (not started) on first use. */
    @SuppressWarnings("unchecked")
    public synchronized <T extends HasMetadata> SharedIndexInformer<T> informer(Class<T> type) {
        return (SharedIndexInformer<T>) informers.computeIfAbsent(type, key -> client.resources(type).inAnyNamespace().runnableInformer(0)
                .itemStore(new ManagedFieldsStrippingStore<T>()));
    }

    /** A lister over the shared informer of {@code type}. */
    public <T extends HasMetadata> Lister<T> lister(Class<T> type) {
        return new Lister<>(informer(type).getIndexer());
    }

    /** Starts every informer registered so far that is not running yet; returns at once. */
    public synchronized void start() {
        for (SharedIndexInformer<?> informer : informers.values()) {
            if (!informer.isRunning()) {
                Class<?> type = informer.getApiTypeClass();
                started.add(informer.start().toCompletableFuture().whenComplete((ignored, error) -> {
                    if (error != null) {
                        LOG.warn("informer for {} failed to start: {}", type.getSimpleName(), error.getMessage());
                    }
                }));
            }
        }
    }

    /** Waits until every started informer has listed once; false on timeout. */
    public boolean waitForCacheSync(Duration timeout) throws InterruptedException {
        CompletableFuture<Void> all;
        synchronized (this) {
            all = CompletableFuture.allOf(started.toArray(CompletableFuture[]::new));
        }
        try {
            all.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            // A failed start retries inside fabric8; report not-synced rather than failing the caller.
            return hasSynced();
        }
    }

    /** True when every registered informer has listed once. */
    public synchronized boolean hasSynced() {
        return informers.values().stream().allMatch(SharedIndexInformer::hasSynced);
    }

    @Override
    public synchronized void close() {
        informers.values().forEach(SharedIndexInformer::stop);
        informers.clear();
        started.clear();
    }
}
