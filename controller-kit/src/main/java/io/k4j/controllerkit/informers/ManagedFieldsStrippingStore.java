package io.k4j.controllerkit.informers;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;

/**
 * An informer's cache that drops each object's {@code metadata.managedFields} before keeping it, as upstream's
 * kube-controller-manager and kube-scheduler do with client-go's {@code TransformStripManagedFields}: control loops
 * never read them, and their nested field sets are most of a cached pod's memory (a map per field in the fabric8
 * model). The handlers see the same stripped object. Writing back an object without managedFields leaves the server's
 * unchanged, so updates from the cache stay correct. Thread-safe as {@link BasicItemStore}.
 */
final class ManagedFieldsStrippingStore<T extends HasMetadata> extends BasicItemStore<T> {
    ManagedFieldsStrippingStore() {
        super(Cache::metaNamespaceKeyFunc);
    }

    @Override
    public T put(String key, T object) {
        if (object.getMetadata() != null) {
            object.getMetadata().setManagedFields(null);
        }
        return super.put(key, object);
    }
}
