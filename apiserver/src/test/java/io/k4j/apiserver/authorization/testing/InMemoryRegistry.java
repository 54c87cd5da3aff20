package io.k4j.apiserver.authorization.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.k4j.api.resource.GroupVersionKind;
import io.k4j.api.resource.GroupVersionResource;
import io.k4j.api.resource.ResourceType;
import io.k4j.apiserver.registry.generic.ObjectStore;
import io.k4j.apiserver.registry.generic.Registry;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A hand-written {@link Registry} serving {@link InMemoryObjectStore}s for the core and RBAC resources the security
 * code reads. Thread-safe.
 */
public final class InMemoryRegistry implements Registry {
    public static final ObjectMapper JSON = new ObjectMapper();

    private final Map<GroupVersionResource, InMemoryObjectStore> stores = new ConcurrentHashMap<>();

    public InMemoryRegistry() {
        add("", "v1", "Pod", "pods", true);
        add("", "v1", "Secret", "secrets", true);
        add("", "v1", "ConfigMap", "configmaps", true);
        add("", "v1", "ServiceAccount", "serviceaccounts", true);
        add("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", true);
        add("", "v1", "PersistentVolume", "persistentvolumes", false);
        add("", "v1", "Node", "nodes", false);
        add("", "v1", "Namespace", "namespaces", false);
        add("rbac.authorization.k8s.io", "v1", "Role", "roles", true);
        add("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", true);
        add("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", false);
        add("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", false);
    }

    private void add(String group, String version, String kind, String plural, boolean namespaced) {
        ResourceType type = new ResourceType(new GroupVersionKind(group, version, kind), plural, kind.toLowerCase(), List.of(), List.of(),
                namespaced, Set.of("create", "delete", "get", "list", "patch", "update", "watch"), Set.of(), GenericKubernetesResource.class);
        stores.put(type.gvr(), new InMemoryObjectStore(type));
    }

    @Override
    public Optional<ObjectStore> store(GroupVersionResource resource) {
        return Optional.ofNullable(stores.get(resource));
    }

    public InMemoryObjectStore store(String group, String resource) {
        return stores.get(new GroupVersionResource(group, "v1", resource));
    }

    /** Creates an object given as JSON (single quotes allowed) in the store its apiVersion and kind name. */
    public ObjectNode create(String resource, String json) {
        ObjectNode object = parse(json);
        String apiVersion = object.path("apiVersion").asText("v1");
        String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
        return store(group, resource).create(object);
    }

    public static ObjectNode parse(String json) {
        try {
            return (ObjectNode) JSON.readTree(json.replace('\'', '"'));
        } catch (Exception e) {
            throw new IllegalArgumentException(json, e);
        }
    }
}
