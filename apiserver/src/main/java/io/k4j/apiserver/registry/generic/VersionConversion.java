package io.k4j.apiserver.registry.generic;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.GroupVersionResource;

/**
 * Converts between a served version and the form its objects are stored in, for a resource that shares
 * another resource's storage (upstream stores events.k8s.io/v1 Events as core/v1 Events). Thread-safe.
 */
public interface VersionConversion {
    /** The resource whose storage holds the objects. */
    GroupVersionResource storageResource();

    /** Served form to stored form (a new tree). */
    ObjectNode toStorage(ObjectNode served);

    /** Stored form to served form (a new tree). */
    ObjectNode fromStorage(ObjectNode stored);
}
