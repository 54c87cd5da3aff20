package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Optional;

/**
 * The outcome of a write.
 *
 * @param object the object after the write (for a delete: its last state)
 * @param created whether an update created the object (201 instead of 200)
 * @param deleted whether a delete removed the object now (rather than marking it for graceful deletion or finalizers)
 * @param warnings for {@code Warning} headers
 * @param json the object as JSON, exactly the bytes {@code Json.write(object)} gives, when the store already has
 *     them (a stored write), so that a JSON response need not encode the object again; must not be modified
 */
public record WriteResult(ObjectNode object, boolean created, boolean deleted, List<String> warnings, Optional<byte[]> json) {
    public WriteResult {
        requireNonNull(object, "object is null");
        warnings = List.copyOf(requireNonNull(warnings, "warnings is null"));
        requireNonNull(json, "json is null");
    }

    /** A result without encoded JSON. */
    public WriteResult(ObjectNode object, boolean created, boolean deleted, List<String> warnings) {
        this(object, created, deleted, warnings, Optional.empty());
    }
}
