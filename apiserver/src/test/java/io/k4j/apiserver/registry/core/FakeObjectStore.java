package io.k4j.apiserver.registry.core;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.api.resource.ResourceType;
import io.k4j.apiserver.registry.generic.ObjectStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/** An in-memory {@link ObjectStore} without strategies, recording what handlers write. Not thread-safe. */
public final class FakeObjectStore implements ObjectStore {
    private final ResourceType type;
    private final Map<String, ObjectNode> objects = new TreeMap<>();
    public final List<String> updatedSubresources = new ArrayList<>();
    public final List<String> deleted = new ArrayList<>();

    public FakeObjectStore(ResourceType type) {
        this.type = type;
    }

    public void put(ObjectNode object) {
        objects.put(key(Trees.text(object, "metadata", "namespace"), Trees.text(object, "metadata", "name")), object.deepCopy());
    }

    @Override
    public ResourceType type() {
        return type;
    }

    @Override
    public ObjectNode get(String namespace, String name) {
        ObjectNode object = objects.get(key(namespace, name));
        if (object == null) {
            throw StatusException.notFound(type.gvk().group(), type.plural(), name);
        }
        return object.deepCopy();
    }

    @Override
    public List<ObjectNode> list(String namespace) {
        return objects.values().stream()
                .filter(object -> namespace.isEmpty() || Trees.text(object, "metadata", "namespace").equals(namespace))
                .map(ObjectNode::deepCopy)
                .toList();
    }

    @Override
    public ObjectNode create(ObjectNode object) {
        put(object);
        return object.deepCopy();
    }

    @Override
    public ObjectNode guaranteedUpdate(String namespace, String name, String subresource, UnaryOperator<ObjectNode> tryUpdate) {
        ObjectNode updated = tryUpdate.apply(get(namespace, name));
        updatedSubresources.add(subresource);
        put(updated);
        return updated.deepCopy();
    }

    @Override
    public void delete(String namespace, String name) {
        get(namespace, name);
        objects.remove(key(namespace, name));
        deleted.add(name);
    }

    private static String key(String namespace, String name) {
        return namespace + "/" + name;
    }
}
