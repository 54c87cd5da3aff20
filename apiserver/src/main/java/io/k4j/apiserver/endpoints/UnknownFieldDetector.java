package io.k4j.apiserver.endpoints;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import java.util.List;

/**
 * Finds fields an object's schema does not declare, for {@code fieldValidation=Strict|Warn}. Implemented from
 * the OpenAPI schemas (api-schema's UnknownFields). Thread-safe.
 */
public interface UnknownFieldDetector {
    /** Paths of unknown fields as upstream names them, e.g. {@code spec.containers[0].imagePullPolicyy}. */
    List<String> unknownFields(ResourceType type, ObjectNode object);
}
