package io.k4j.controllers.garbagecollector;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.k4j.controllers.dynamic.ApiResource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An in-memory apiserver for the garbage collector: objects by resource, namespace and name; deletes and patches are
 * recorded, applied, and reported to the graph as an informer would. Finalizers keep a deleted object (with a
 * deletion timestamp) as the apiserver does. Thread-safe.
 */
final class FakeObjectClient implements ObjectClient {
    private final Map<String, ObjectMeta> objects = new LinkedHashMap<>();
    private final Map<String, ApiResource> resources = new LinkedHashMap<>();
    private final List<String> deletes = new ArrayList<>();
    private final List<String> patches = new ArrayList<>();
    private DependencyGraph graph;
    private long resourceVersion = 100;

    synchronized void attach(DependencyGraph graph) {
        this.graph = graph;
    }

    /** Stores an object and tells the graph, as an informer's add. */
    synchronized void add(ApiResource resource, ObjectMeta metadata) {
        ObjectMeta stored = new ObjectMetaBuilder(metadata).withResourceVersion(Long.toString(++resourceVersion)).build();
        objects.put(key(resource, stored.getNamespace(), stored.getName()), stored);
        resources.put(key(resource, stored.getNamespace(), stored.getName()), resource);
        if (graph != null) {
            graph.observe(ObservedObject.of(resource.apiVersion(), resource.kind(), stored));
        }
    }

    /** Stores an object without telling the graph: one the informers have not delivered (yet). */
    synchronized void addUnobserved(ApiResource resource, ObjectMeta metadata) {
        ObjectMeta stored = new ObjectMetaBuilder(metadata).withResourceVersion(Long.toString(++resourceVersion)).build();
        objects.put(key(resource, stored.getNamespace(), stored.getName()), stored);
    }

    /** Removes an object at once, as a delete without finalizers, and tells the graph. */
    synchronized void remove(ApiResource resource, String namespace, String name) {
        ObjectMeta removed = objects.remove(key(resource, namespace, name));
        if (removed != null && graph != null) {
            graph.forget(ObservedObject.of(resource.apiVersion(), resource.kind(), removed));
        }
    }

    @Override
    public synchronized Optional<ObjectMeta> get(ApiResource resource, String namespace, String name) {
        return Optional.ofNullable(objects.get(key(resource, namespace, name))).map(metadata -> new ObjectMetaBuilder(metadata).build());
    }

    @Override
    public synchronized void delete(ApiResource resource, ObjectMeta latest, String propagationPolicy) {
        String key = key(resource, latest.getNamespace(), latest.getName());
        ObjectMeta current = objects.get(key);
        if (current == null) {
            return;
        }
        if (!current.getResourceVersion().equals(latest.getResourceVersion()) || !current.getUid().equals(latest.getUid())) {
            throw new KubernetesClientException("precondition failed", 409, null);
        }
        deletes.add(resource.kind() + " " + key + " " + propagationPolicy);
        List<String> finalizers = new ArrayList<>(current.getFinalizers() == null ? List.of() : current.getFinalizers());
        if (propagationPolicy.equals(GarbageCollector.FOREGROUND) && !finalizers.contains(ObservedObject.FOREGROUND_FINALIZER)) {
            finalizers.add(ObservedObject.FOREGROUND_FINALIZER);
        }
        if (propagationPolicy.equals(GarbageCollector.ORPHAN) && !finalizers.contains(ObservedObject.ORPHAN_FINALIZER)) {
            finalizers.add(ObservedObject.ORPHAN_FINALIZER);
        }
        if (finalizers.isEmpty()) {
            remove(resource, latest.getNamespace(), latest.getName());
        } else {
            store(resource, new ObjectMetaBuilder(current).withFinalizers(finalizers).withDeletionTimestamp("2026-01-01T00:00:00Z").build());
        }
    }

    @Override
    public synchronized void setOwnerReferences(ApiResource resource, ObjectMeta latest, List<OwnerReference> ownerReferences) {
        ObjectMeta current = checked(resource, latest);
        patches.add(resource.kind() + " " + key(resource, latest.getNamespace(), latest.getName()) + " ownerReferences="
                + ownerReferences.stream().map(owner -> owner.getName() + (Boolean.TRUE.equals(owner.getBlockOwnerDeletion()) ? "(blocking)" : "")).toList());
        store(resource, new ObjectMetaBuilder(current).withOwnerReferences(ownerReferences).build());
    }

    @Override
    public synchronized void setFinalizers(ApiResource resource, ObjectMeta latest, List<String> finalizers) {
        ObjectMeta current = checked(resource, latest);
        patches.add(resource.kind() + " " + key(resource, latest.getNamespace(), latest.getName()) + " finalizers=" + finalizers);
        if (finalizers.isEmpty() && current.getDeletionTimestamp() != null) {
            remove(resource, latest.getNamespace(), latest.getName());
            return;
        }
        store(resource, new ObjectMetaBuilder(current).withFinalizers(finalizers).build());
    }

    private ObjectMeta checked(ApiResource resource, ObjectMeta latest) {
        ObjectMeta current = objects.get(key(resource, latest.getNamespace(), latest.getName()));
        if (current == null) {
            throw new KubernetesClientException("not found", 404, null);
        }
        if (!current.getResourceVersion().equals(latest.getResourceVersion())) {
            throw new KubernetesClientException("the object has been modified", 409, null);
        }
        return current;
    }

    private void store(ApiResource resource, ObjectMeta metadata) {
        add(resource, metadata);
    }

    synchronized List<String> deletes() {
        return List.copyOf(deletes);
    }

    synchronized List<String> patches() {
        return List.copyOf(patches);
    }

    synchronized boolean exists(ApiResource resource, String namespace, String name) {
        return objects.containsKey(key(resource, namespace, name));
    }

    private static String key(ApiResource resource, String namespace, String name) {
        return resource.plural() + "/" + (resource.namespaced() && namespace != null ? namespace + "/" : "") + name;
    }
}
