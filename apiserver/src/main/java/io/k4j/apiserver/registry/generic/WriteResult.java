package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * The outcome of a write.
 *
 * @param object the object after the write (for a delete: its last state)
 * @param created whether an update created the object (201 instead of 200)
 * @param deleted whether a delete removed the object now (rather than marking it for graceful deletion or finalizers)
 * @param warnings for {@code Warning} headers
 */
public record WriteResult(ObjectNode object, boolean created, boolean deleted, List<String> warnings) {
    public WriteResult {
        requireNonNull(object, "object is null");
        warnings = List.copyOf(requireNonNull(warnings, "warnings is null"));
    }
}
