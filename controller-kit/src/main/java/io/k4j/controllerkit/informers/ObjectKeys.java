package io.k4j.controllerkit.informers;

import io.fabric8.kubernetes.api.model.HasMetadata;

/** Work-queue keys as client-go's {@code MetaNamespaceKeyFunc}: {@code namespace/name}, or {@code name} when cluster-scoped. */
public final class ObjectKeys {
    private ObjectKeys() {}

    public static String key(HasMetadata object) {
        return key(object.getMetadata().getNamespace(), object.getMetadata().getName());
    }

    public static String key(String namespace, String name) {
        return namespace == null || namespace.isEmpty() ? name : namespace + "/" + name;
    }

    /** The namespace of a key, empty for cluster-scoped keys. */
    public static String namespace(String key) {
        int slash = key.indexOf('/');
        return slash < 0 ? "" : key.substring(0, slash);
    }

    /** The name of a key. */
    public static String name(String key) {
        return key.substring(key.indexOf('/') + 1);
    }
}
