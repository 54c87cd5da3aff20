package io.k4j.apiserver.discovery;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import io.k4j.api.resource.ResourceType;
import io.k4j.apiserver.registry.generic.ResourceDefinition;
import io.k4j.apiserver.registry.generic.SubresourceHandler;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The discovery documents, built once from the served resources in upstream's shapes: {@code /api}
 * (APIVersions), {@code /apis} (APIGroupList), {@code /api/v1} and {@code /apis/<group>/<version>}
 * (APIResourceList), {@code /apis/<group>} (APIGroup), and the aggregated discovery v2
 * (APIGroupDiscoveryList) kubectl asks for first. Immutable and thread-safe.
 */
public final class DiscoveryDocuments {
    /** The Accept parameter {@code as=} value of aggregated discovery. */
    public static final String AGGREGATED_AS = "APIGroupDiscoveryList";

    private final Map<String, Map<String, List<Entry>>> groups = new LinkedHashMap<>();

    /** One served resource with what discovery lists about it. */
    public record Entry(ResourceType type, List<Subresource> subresources) {
        public Entry {
            requireNonNull(type, "type is null");
            subresources = List.copyOf(subresources);
        }
    }

    /**
     * @param group the group of the subresource's kind (e.g. {@code autoscaling} for scale), empty for core
     */
    public record Subresource(String name, String group, String version, String kind, List<String> verbs) {
        public Subresource {
            verbs = List.copyOf(verbs);
        }
    }

    public DiscoveryDocuments(List<Entry> entries) {
        for (Entry entry : entries) {
            ResourceType type = entry.type();
            groups.computeIfAbsent(type.gvk().group(), group -> new LinkedHashMap<>())
                    .computeIfAbsent(type.gvk().version(), version -> new ArrayList<>())
                    .add(entry);
        }
    }

    /** The entry of a stored resource: its strategy subresources (get, patch, update) and handlers (by the methods they implement). */
    public static Entry entry(ResourceDefinition definition) {
        ResourceType type = definition.strategy().type();
        List<Subresource> subresources = new ArrayList<>();
        for (String name : new TreeSet<>(definition.subresourceStrategies().keySet())) {
            subresources.add(new Subresource(name, type.gvk().group(), type.gvk().version(), type.kind(), List.of("get", "patch", "update")));
        }
        for (SubresourceHandler handler : definition.subresourceHandlers()) {
            TreeSet<String> verbs = new TreeSet<>();
            if (overrides(handler, "get")) {
                verbs.add("get");
            }
            if (overrides(handler, "create")) {
                verbs.add("create");
            }
            if (overrides(handler, "update")) {
                verbs.add("update");
                verbs.add("patch");
            }
            String apiVersion = handler.apiVersion();
            int slash = apiVersion.indexOf('/');
            subresources.add(new Subresource(handler.subresource(), slash < 0 ? "" : apiVersion.substring(0, slash),
                    slash < 0 ? apiVersion : apiVersion.substring(slash + 1), handler.kind(), List.copyOf(verbs)));
        }
        return new Entry(type, subresources);
    }

    private static boolean overrides(SubresourceHandler handler, String method) {
        for (Method candidate : handler.getClass().getMethods()) {
            if (candidate.getName().equals(method) && candidate.getDeclaringClass() != SubresourceHandler.class && !candidate.isDefault()) {
                return true;
            }
        }
        return false;
    }

    public boolean servesGroup(String group) {
        return groups.containsKey(group);
    }

    public boolean servesGroupVersion(String group, String version) {
        return groups.containsKey(group) && groups.get(group).containsKey(version);
    }

    /** {@code /api}: the core versions. */
    public ObjectNode apiVersions(String serverAddress) {
        ObjectNode versions = Json.object();
        versions.put("kind", "APIVersions");
        ArrayNode list = versions.putArray("versions");
        groups.getOrDefault("", Map.of()).keySet().forEach(list::add);
        versions.putArray("serverAddressByClientCIDRs").addObject().put("clientCIDR", "0.0.0.0/0").put("serverAddress", serverAddress);
        return versions;
    }

    /** {@code /apis}: every named group. */
    public ObjectNode apiGroupList() {
        ObjectNode list = Json.object();
        list.put("kind", "APIGroupList");
        list.put("apiVersion", "v1");
        ArrayNode array = list.putArray("groups");
        for (String group : groups.keySet()) {
            if (!group.isEmpty()) {
                array.add(apiGroupBody(group));
            }
        }
        return list;
    }

    /** {@code /apis/<group>}. */
    public Optional<ObjectNode> apiGroup(String group) {
        if (group.isEmpty() || !groups.containsKey(group)) {
            return Optional.empty();
        }
        ObjectNode node = apiGroupBody(group);
        node.put("kind", "APIGroup");
        node.put("apiVersion", "v1");
        return Optional.of(node);
    }

    private ObjectNode apiGroupBody(String group) {
        ObjectNode node = Json.object();
        node.put("name", group);
        ArrayNode versions = node.putArray("versions");
        List<String> versionNames = new ArrayList<>(groups.get(group).keySet());
        for (String version : versionNames) {
            versions.addObject().put("groupVersion", group + "/" + version).put("version", version);
        }
        node.putObject("preferredVersion").put("groupVersion", group + "/" + versionNames.get(0)).put("version", versionNames.get(0));
        return node;
    }

    /** {@code /api/v1} or {@code /apis/<group>/<version>}. */
    public Optional<ObjectNode> apiResourceList(String group, String version) {
        if (!servesGroupVersion(group, version)) {
            return Optional.empty();
        }
        ObjectNode list = Json.object();
        list.put("kind", "APIResourceList");
        list.put("apiVersion", "v1");
        list.put("groupVersion", group.isEmpty() ? version : group + "/" + version);
        ArrayNode resources = list.putArray("resources");
        for (Entry entry : groups.get(group).get(version)) {
            ResourceType type = entry.type();
            ObjectNode resource = resources.addObject();
            resource.put("name", type.plural());
            resource.put("singularName", type.singular());
            resource.put("namespaced", type.namespaced());
            resource.put("kind", type.kind());
            addStrings(resource.putArray("verbs"), new TreeSet<>(type.verbs()));
            if (!type.shortNames().isEmpty()) {
                addStrings(resource.putArray("shortNames"), type.shortNames());
            }
            if (!type.categories().isEmpty()) {
                addStrings(resource.putArray("categories"), type.categories());
            }
            for (Subresource subresource : entry.subresources()) {
                ObjectNode node = resources.addObject();
                node.put("name", type.plural() + "/" + subresource.name());
                node.put("singularName", "");
                node.put("namespaced", type.namespaced());
                if (!subresource.group().equals(group) || !subresource.version().equals(version)) {
                    node.put("group", subresource.group());
                    node.put("version", subresource.version());
                }
                node.put("kind", subresource.kind());
                addStrings(node.putArray("verbs"), subresource.verbs());
            }
        }
        return Optional.of(list);
    }

    /**
     * The aggregated discovery document of {@code /api} ({@code core} true) or {@code /apis}.
     *
     * @param apiVersion {@code apidiscovery.k8s.io/v2} or {@code apidiscovery.k8s.io/v2beta1}
     */
    public ObjectNode aggregated(boolean core, String apiVersion) {
        ObjectNode list = Json.object();
        list.put("kind", AGGREGATED_AS);
        list.put("apiVersion", apiVersion);
        list.putObject("metadata");
        ArrayNode items = list.putArray("items");
        for (Map.Entry<String, Map<String, List<Entry>>> group : groups.entrySet()) {
            if (group.getKey().isEmpty() != core) {
                continue;
            }
            ObjectNode item = items.addObject();
            ObjectNode metadata = item.putObject("metadata");
            if (!core) {
                metadata.put("name", group.getKey());
            }
            metadata.putNull("creationTimestamp");
            ArrayNode versions = item.putArray("versions");
            for (Map.Entry<String, List<Entry>> version : group.getValue().entrySet()) {
                ObjectNode versionNode = versions.addObject();
                versionNode.put("version", version.getKey());
                ArrayNode resources = versionNode.putArray("resources");
                for (Entry entry : version.getValue()) {
                    resources.add(aggregatedResource(entry));
                }
                versionNode.put("freshness", "Current");
            }
        }
        return list;
    }

    private static ObjectNode aggregatedResource(Entry entry) {
        ResourceType type = entry.type();
        ObjectNode resource = Json.object();
        resource.put("resource", type.plural());
        resource.putObject("responseKind").put("group", type.gvk().group()).put("version", type.gvk().version()).put("kind", type.kind());
        resource.put("scope", type.namespaced() ? "Namespaced" : "Cluster");
        resource.put("singularResource", type.singular());
        addStrings(resource.putArray("verbs"), new TreeSet<>(type.verbs()));
        if (!type.shortNames().isEmpty()) {
            addStrings(resource.putArray("shortNames"), type.shortNames());
        }
        if (!type.categories().isEmpty()) {
            addStrings(resource.putArray("categories"), type.categories());
        }
        if (!entry.subresources().isEmpty()) {
            ArrayNode subresources = resource.putArray("subresources");
            for (Subresource subresource : entry.subresources()) {
                ObjectNode node = subresources.addObject();
                node.put("subresource", subresource.name());
                node.putObject("responseKind").put("group", subresource.group()).put("version", subresource.version()).put("kind", subresource.kind());
                addStrings(node.putArray("verbs"), subresource.verbs());
            }
        }
        return resource;
    }

    private static void addStrings(ArrayNode array, Iterable<String> values) {
        values.forEach(array::add);
    }
}
