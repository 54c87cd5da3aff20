package io.k4j.apiserver.registry.generic;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * In-process access to the objects of one resource, for code inside the apiserver (subresource handlers,
 * admission plugins, authorizers, bootstrap). Reads are served from the watch cache; writes go through the
 * resource's strategy and storage but skip authentication, authorization and admission.
 *
 * <p>Returned objects are copies the caller may modify, except those of the {@code ForReading} methods.
 * Implementations are thread-safe.
 */
public interface ObjectStore {
    ResourceType type();

    /**
     * @throws io.k4j.api.errors.StatusException 404 when absent
     */
    ObjectNode get(String namespace, String name);

    /** Objects of the namespace, or of all namespaces when {@code namespace} is empty; in key order. */
    List<ObjectNode> list(String namespace);

    /**
     * {@link #get} for a caller that only reads the object (admission reads a pod's namespace, service account and
     * priority class on every pod create): the object may be shared with other readers, so it must not be modified.
     *
     * @throws io.k4j.api.errors.StatusException 404 when absent
     */
    default ObjectNode getForReading(String namespace, String name) {
        return get(namespace, name);
    }

    /** {@link #list} for a caller that only reads the objects: they may be shared and must not be modified. */
    default List<ObjectNode> listForReading(String namespace) {
        return list(namespace);
    }

    /**
     * Creates an object (name or generateName set by the caller).
     *
     * @throws io.k4j.api.errors.StatusException 409 AlreadyExists, 422 Invalid …
     */
    ObjectNode create(ObjectNode object);

    /**
     * Reads the current object, applies {@code tryUpdate} to a copy and stores the result guarded by the read
     * resourceVersion, retrying on conflict, as upstream's {@code GuaranteedUpdate}. {@code tryUpdate} may throw a
     * {@code StatusException} to abort.
     *
     * @param subresource empty for the main resource, or e.g. {@code status} to apply that subresource's strategy
     */
    ObjectNode guaranteedUpdate(String namespace, String name, String subresource, UnaryOperator<ObjectNode> tryUpdate);

    /** Deletes an object immediately (no grace period), as a delete without options would. */
    void delete(String namespace, String name);
}
