package io.k4j.apiserver.endpoints;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;

/**
 * Applies a strategic merge patch, which needs the type's patch strategies and merge keys (from the schema).
 * Thread-safe.
 */
public interface StrategicMergePatcher {
    /**
     * @return the patched object (a new tree)
     * @throws io.k4j.api.errors.StatusException on a malformed patch
     */
    ObjectNode apply(ResourceType type, ObjectNode original, ObjectNode patch);
}
