package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import java.util.Map;

/**
 * One object as the watch cache holds it: serialised once, in the served form with its {@code resourceVersion}
 * set, so that LIST and WATCH write the bytes without encoding again; plus what selectors match on.
 * Immutable; {@link #json()} must not be modified.
 *
 * @param key the storage key
 * @param namespace the namespace, empty for cluster-scoped objects
 * @param name the name
 * @param revision the storage mod revision (the object's resourceVersion)
 * @param json the object as JSON
 * @param labels {@code metadata.labels}
 * @param fields the values field selectors match, including {@code metadata.name} and {@code metadata.namespace}
 */
public record CachedObject(String key, String namespace, String name, long revision, byte[] json, Map<String, String> labels, Map<String, String> fields) {
    public CachedObject {
        requireNonNull(key, "key is null");
        requireNonNull(namespace, "namespace is null");
        requireNonNull(name, "name is null");
        requireNonNull(json, "json is null");
        labels = Map.copyOf(requireNonNull(labels, "labels is null"));
        fields = Map.copyOf(requireNonNull(fields, "fields is null"));
    }

    /** A fresh tree of the object the caller may modify. */
    public ObjectNode toObjectNode() {
        return (ObjectNode) Json.read(json);
    }
}
