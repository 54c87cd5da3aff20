package io.k4j.apiserver.registry.generic;

import io.k4j.api.resource.GroupVersionResource;
import io.k4j.api.resource.ResourceType;
import java.util.Map;

/**
 * Storage key layout, as upstream's registry: {@code /registry/<prefix>/<namespace>/<name>} for namespaced
 * resources and {@code /registry/<prefix>/<name>} for cluster-scoped ones. The prefix is the plural name except
 * where upstream kept historical names (services are under {@code services/specs}, nodes under {@code minions}),
 * and resources of groups outside Kubernetes (custom resources) are under {@code <group>/<plural>}. Thread-safe.
 */
public final class StorageKeys {
    public static final String ROOT = "/registry/";

    private static final Map<GroupVersionResourceKey, String> HISTORICAL_PREFIXES = Map.of(
            new GroupVersionResourceKey("", "services"), "services/specs",
            new GroupVersionResourceKey("", "endpoints"), "services/endpoints",
            new GroupVersionResourceKey("", "nodes"), "minions",
            new GroupVersionResourceKey("", "replicationcontrollers"), "controllers",
            new GroupVersionResourceKey("networking.k8s.io", "ingresses"), "ingress",
            new GroupVersionResourceKey("apiextensions.k8s.io", "customresourcedefinitions"), "apiextensions.k8s.io/customresourcedefinitions",
            new GroupVersionResourceKey("apiregistration.k8s.io", "apiservices"), "apiregistration.k8s.io/apiservices");

    private StorageKeys() {}

    /** The prefix every key of the resource starts with, ending in {@code /}, e.g. {@code /registry/pods/}. */
    public static String resourcePrefix(ResourceType type) {
        return resourcePrefix(type.gvr());
    }

    public static String resourcePrefix(GroupVersionResource resource) {
        String historical = HISTORICAL_PREFIXES.get(new GroupVersionResourceKey(resource.group(), resource.resource()));
        if (historical != null) {
            return ROOT + historical + "/";
        }
        if (isBuiltInGroup(resource.group())) {
            return ROOT + resource.resource() + "/";
        }
        return ROOT + resource.group() + "/" + resource.resource() + "/";
    }

    /** The prefix of one namespace's objects, or of all objects when {@code namespace} is empty. */
    public static String namespacePrefix(String resourcePrefix, String namespace) {
        return namespace.isEmpty() ? resourcePrefix : resourcePrefix + namespace + "/";
    }

    public static String key(String resourcePrefix, String namespace, String name) {
        return namespace.isEmpty() ? resourcePrefix + name : resourcePrefix + namespace + "/" + name;
    }

    private static boolean isBuiltInGroup(String group) {
        return group.isEmpty() || !group.contains(".") || group.endsWith(".k8s.io");
    }

    private record GroupVersionResourceKey(String group, String resource) {}
}
