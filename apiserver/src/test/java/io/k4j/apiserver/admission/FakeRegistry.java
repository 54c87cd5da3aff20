package io.k4j.apiserver.admission;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.api.resource.GroupVersionKind;
import io.k4j.api.resource.GroupVersionResource;
import io.k4j.api.resource.ResourceType;
import io.k4j.apiserver.registry.generic.ObjectStore;
import io.k4j.apiserver.registry.generic.Registry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/** An in-memory {@link Registry} for admission tests: objects by resource, namespace and name. Not thread-safe. */
public final class FakeRegistry implements Registry {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final Map<GroupVersionResource, FakeStore> stores = new ConcurrentHashMap<>();

    /** Adds an object given as JSON to the store of {@code resource}. */
    public FakeRegistry with(GroupVersionResource resource, String json) {
        try {
            ObjectNode object = (ObjectNode) MAPPER.readTree(json);
            storeFor(resource).put(object);
            return this;
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException(e);
        }
    }

    public FakeStore storeFor(GroupVersionResource resource) {
        return stores.computeIfAbsent(resource, FakeStore::new);
    }

    @Override
    public Optional<ObjectStore> store(GroupVersionResource resource) {
        return Optional.of(storeFor(resource));
    }

    /** Objects of one resource, in key order. */
    public static final class FakeStore implements ObjectStore {
        private final GroupVersionResource resource;
        private final TreeMap<String, ObjectNode> objects = new TreeMap<>();
        private long revision;

        FakeStore(GroupVersionResource resource) {
            this.resource = resource;
        }

        void put(ObjectNode object) {
            object.with("metadata").put("resourceVersion", Long.toString(++revision));
            objects.put(key(object.path("metadata").path("namespace").asText(""), object.path("metadata").path("name").asText()), object);
        }

        private static String key(String namespace, String name) {
            return namespace + "/" + name;
        }

        @Override
        public ResourceType type() {
            return new ResourceType(new GroupVersionKind(resource.group(), resource.version(), "Fake"), resource.resource(), "fake",
                    List.of(), List.of(), true, Set.of("get", "list"), Set.of(), Object.class);
        }

        @Override
        public ObjectNode get(String namespace, String name) {
            ObjectNode object = objects.get(key(namespace, name));
            if (object == null) {
                throw StatusException.notFound(resource.group(), resource.resource(), name);
            }
            return object.deepCopy();
        }

        @Override
        public List<ObjectNode> list(String namespace) {
            List<ObjectNode> result = new ArrayList<>();
            objects.forEach((key, object) -> {
                if (namespace.isEmpty() || key.startsWith(namespace + "/")) {
                    result.add(object.deepCopy());
                }
            });
            return result;
        }

        @Override
        public ObjectNode create(ObjectNode object) {
            String name = object.path("metadata").path("name").asText();
            String namespace = object.path("metadata").path("namespace").asText("");
            if (objects.containsKey(key(namespace, name))) {
                throw StatusException.alreadyExists(resource.group(), resource.resource(), name);
            }
            put(object.deepCopy());
            return get(namespace, name);
        }

        @Override
        public ObjectNode guaranteedUpdate(String namespace, String name, String subresource, UnaryOperator<ObjectNode> tryUpdate) {
            ObjectNode updated = tryUpdate.apply(get(namespace, name));
            put(updated);
            return get(namespace, name);
        }

        @Override
        public void delete(String namespace, String name) {
            if (objects.remove(key(namespace, name)) == null) {
                throw StatusException.notFound(resource.group(), resource.resource(), name);
            }
        }
    }
}
