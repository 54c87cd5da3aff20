package io.k4j.controllers.resourcequota;

import io.k4j.api.quota.QuotaScopes;
import io.k4j.api.quota.QuotaUsage;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.k4j.api.quantity.Quantity;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Counts what a quota's hard limits name, from the objects of its namespace: upstream's quota evaluators (object
 * counts, pod compute requests and limits, claim storage, service load balancers and node ports). Thread-safe.
 */
final class QuotaCalculator {
    /** The objects of one resource in one namespace, as JSON. */
    @FunctionalInterface
    interface ObjectSource {
        List<JsonNode> list(String group, String resource, String namespace);
    }

    /** A resource by group and plural. */
    record GroupResource(String group, String resource) {}

    private static final Map<String, String> LEGACY = Map.of(
            "pods", "pods", "services", "services", "configmaps", "configmaps", "secrets", "secrets",
            "replicationcontrollers", "replicationcontrollers", "resourcequotas", "resourcequotas",
            "persistentvolumeclaims", "persistentvolumeclaims");

    private final ObjectSource objects;

    QuotaCalculator(ObjectSource objects) {
        this.objects = requireNonNull(objects, "objects is null");
    }

    /** The usage of every resource name in {@code hard}, zero where nothing counts. */
    Map<String, Quantity> usage(JsonNode quota, String namespace, Set<String> hard) {
        Map<String, Quantity> used = new TreeMap<>();
        hard.forEach(name -> used.put(name, Quantity.ZERO));
        for (GroupResource counted : countedResources(hard)) {
            for (JsonNode object : objects.list(counted.group(), counted.resource(), namespace)) {
                if (!QuotaScopes.matches(quota, counted.group(), counted.resource(), object)) {
                    continue;
                }
                QuotaUsage.of(counted.group(), counted.resource(), object).forEach((name, value) -> {
                    if (used.containsKey(name)) {
                        used.merge(name, value, Quantity::add);
                    }
                });
            }
        }
        return used;
    }

    /** The resources whose objects contribute to any of the names. */
    static Set<GroupResource> countedResources(Set<String> hard) {
        Set<GroupResource> counted = new LinkedHashSet<>();
        for (String name : hard) {
            if (name.startsWith("count/")) {
                String groupResource = name.substring("count/".length());
                int dot = groupResource.indexOf('.');
                counted.add(dot < 0 ? new GroupResource("", groupResource) : new GroupResource(groupResource.substring(dot + 1), groupResource.substring(0, dot)));
            } else if (LEGACY.containsKey(name)) {
                counted.add(new GroupResource("", LEGACY.get(name)));
            } else if (name.equals("cpu") || name.equals("memory") || name.equals("ephemeral-storage")
                    || name.startsWith("requests.") && !name.equals("requests.storage") || name.startsWith("limits.")) {
                counted.add(new GroupResource("", "pods"));
            } else if (name.equals("requests.storage") || name.contains(".storageclass.storage.k8s.io/")) {
                counted.add(new GroupResource("", "persistentvolumeclaims"));
            } else if (name.startsWith("services.")) {
                counted.add(new GroupResource("", "services"));
            }
        }
        return counted;
    }
}
