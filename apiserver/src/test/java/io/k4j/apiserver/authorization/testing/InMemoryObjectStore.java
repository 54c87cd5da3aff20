package io.k4j.apiserver.authorization.testing;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.api.resource.ResourceType;
import io.k4j.apiserver.registry.generic.ObjectStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

/**
 * A hand-written {@link ObjectStore} keeping objects in a map, for tests of code that reads and writes through the
 * registry. It assigns uid, resourceVersion and creationTimestamp like the real store and returns copies. Thread-safe.
 */
public final class InMemoryObjectStore implements ObjectStore {
    private static final AtomicLong REVISION = new AtomicLong();

    private final ResourceType type;
    private final Map<String, ObjectNode> objects = new TreeMap<>();

    public InMemoryObjectStore(ResourceType type) {
        this.type = requireNonNull(type, "type is null");
    }

    @Override
    public ResourceType type() {
        return type;
    }

    @Override
    public synchronized ObjectNode get(String namespace, String name) {
        ObjectNode object = objects.get(key(namespace, name));
        if (object == null) {
            throw StatusException.notFound(type.gvk().group(), type.plural(), name);
        }
        return object.deepCopy();
    }

    @Override
    public synchronized List<ObjectNode> list(String namespace) {
        List<ObjectNode> result = new ArrayList<>();
        for (Map.Entry<String, ObjectNode> entry : objects.entrySet()) {
            if (namespace.isEmpty() || entry.getKey().startsWith(namespace + "/")) {
                result.add(entry.getValue().deepCopy());
            }
        }
        return result;
    }

    @Override
    public synchronized ObjectNode create(ObjectNode object) {
        ObjectNode copy = object.deepCopy();
        ObjectNode metadata = copy.with("metadata");
        String namespace = type.namespaced() ? metadata.path("namespace").asText("") : "";
        String name = metadata.path("name").asText("");
        if (name.isEmpty()) {
            name = metadata.path("generateName").asText("") + UUID.randomUUID().toString().substring(0, 5);
            metadata.put("name", name);
        }
        String key = key(namespace, name);
        if (objects.containsKey(key)) {
            throw StatusException.alreadyExists(type.gvk().group(), type.plural(), name);
        }
        if (!metadata.hasNonNull("uid")) {
            metadata.put("uid", UUID.randomUUID().toString());
        }
        metadata.put("resourceVersion", Long.toString(REVISION.incrementAndGet()));
        if (!metadata.hasNonNull("creationTimestamp")) {
            metadata.put("creationTimestamp", Instant.now().toString());
        }
        copy.put("apiVersion", type.gvk().apiVersion());
        copy.put("kind", type.kind());
        objects.put(key, copy);
        return copy.deepCopy();
    }

    @Override
    public synchronized ObjectNode guaranteedUpdate(String namespace, String name, String subresource, UnaryOperator<ObjectNode> tryUpdate) {
        ObjectNode current = get(namespace, name);
        ObjectNode updated = tryUpdate.apply(current.deepCopy());
        updated.with("metadata").put("resourceVersion", Long.toString(REVISION.incrementAndGet()));
        objects.put(key(type.namespaced() ? namespace : "", name), updated.deepCopy());
        return updated;
    }

    @Override
    public synchronized void delete(String namespace, String name) {
        if (objects.remove(key(type.namespaced() ? namespace : "", name)) == null) {
            throw StatusException.notFound(type.gvk().group(), type.plural(), name);
        }
    }

    private static String key(String namespace, String name) {
        return namespace + "/" + name;
    }
}
