package io.k4j.api.quota;

import com.fasterxml.jackson.databind.JsonNode;
import io.k4j.api.quantity.Quantity;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one object counts against quotas, under upstream's resource names: object counts ({@code pods},
 * {@code count/deployments.apps} …) and, for pods and claims, compute and storage ({@code requests.cpu},
 * {@code limits.memory}, {@code requests.storage} …). Pure functions.
 */
public final class QuotaUsage {
    /** Resources whose object count also has a legacy quota name without the {@code count/} prefix. */
    private static final Map<String, String> LEGACY_COUNT_NAMES = Map.of(
            "pods", "pods",
            "services", "services",
            "configmaps", "configmaps",
            "secrets", "secrets",
            "replicationcontrollers", "replicationcontrollers",
            "resourcequotas", "resourcequotas",
            "persistentvolumeclaims", "persistentvolumeclaims");
    private static final List<String> COMPUTE_RESOURCES = List.of("cpu", "memory", "ephemeral-storage");

    private QuotaUsage() {}

    /** The quota name of the object count of a resource: {@code count/pods}, {@code count/deployments.apps}. */
    public static String countName(String group, String resource) {
        return "count/" + (group.isEmpty() ? resource : resource + "." + group);
    }

    /** The usage of one object of {@code resource}. */
    public static Map<String, Quantity> of(String group, String resource, JsonNode object) {
        Map<String, Quantity> usage = new TreeMap<>();
        boolean core = group.isEmpty();
        if (core && resource.equals("pods")) {
            if (isTerminal(object)) {
                // A finished pod no longer holds resources, as upstream's pod evaluator says.
                return usage;
            }
            addPodCompute(object, usage);
        }
        usage.put(countName(group, resource), Quantity.of(1, Quantity.Format.DECIMAL_SI));
        if (core && LEGACY_COUNT_NAMES.containsKey(resource)) {
            usage.put(LEGACY_COUNT_NAMES.get(resource), Quantity.of(1, Quantity.Format.DECIMAL_SI));
        }
        if (core && resource.equals("services")) {
            addServiceUsage(object, usage);
        }
        if (core && resource.equals("persistentvolumeclaims")) {
            addClaimUsage(object, usage);
        }
        return usage;
    }

    public static boolean isTerminal(JsonNode pod) {
        String phase = pod.path("status").path("phase").asText("");
        return phase.equals("Succeeded") || phase.equals("Failed");
    }

    /** The pod's effective requests and limits: the sum over containers, or the largest init container if larger. */
    private static void addPodCompute(JsonNode pod, Map<String, Quantity> usage) {
        for (String kind : List.of("requests", "limits")) {
            for (String resource : COMPUTE_RESOURCES) {
                Quantity sum = Quantity.ZERO;
                boolean any = false;
                for (JsonNode container : pod.path("spec").path("containers")) {
                    JsonNode value = container.path("resources").path(kind).path(resource);
                    if (!value.isMissingNode()) {
                        sum = sum.add(Quantity.fromJson(value));
                        any = true;
                    }
                }
                for (JsonNode container : pod.path("spec").path("initContainers")) {
                    JsonNode value = container.path("resources").path(kind).path(resource);
                    if (!value.isMissingNode()) {
                        Quantity initValue = Quantity.fromJson(value);
                        if (initValue.compareTo(sum) > 0) {
                            sum = initValue;
                        }
                        any = true;
                    }
                }
                JsonNode overhead = pod.path("spec").path("overhead").path(resource);
                if (any && !overhead.isMissingNode()) {
                    sum = sum.add(Quantity.fromJson(overhead));
                }
                if (any) {
                    usage.put(kind + "." + resource, sum);
                    if (kind.equals("requests") && !resource.equals("ephemeral-storage")) {
                        usage.put(resource, sum);
                    }
                }
            }
        }
    }

    private static void addServiceUsage(JsonNode service, Map<String, Quantity> usage) {
        String type = service.path("spec").path("type").asText("ClusterIP");
        if (type.equals("LoadBalancer")) {
            usage.put("services.loadbalancers", Quantity.of(1, Quantity.Format.DECIMAL_SI));
        }
        if (type.equals("NodePort") || type.equals("LoadBalancer")) {
            usage.put("services.nodeports", Quantity.of(service.path("spec").path("ports").size(), Quantity.Format.DECIMAL_SI));
        }
    }

    private static void addClaimUsage(JsonNode claim, Map<String, Quantity> usage) {
        JsonNode storage = claim.path("spec").path("resources").path("requests").path("storage");
        String storageClass = claim.path("spec").path("storageClassName").asText("");
        if (!storage.isMissingNode()) {
            usage.put("requests.storage", Quantity.fromJson(storage));
            if (!storageClass.isEmpty()) {
                usage.put(storageClass + ".storageclass.storage.k8s.io/requests.storage", Quantity.fromJson(storage));
            }
        }
        if (!storageClass.isEmpty()) {
            usage.put(storageClass + ".storageclass.storage.k8s.io/persistentvolumeclaims", Quantity.of(1, Quantity.Format.DECIMAL_SI));
        }
    }

    /** Which containers of a pod lack a request or limit the quota constrains; empty when none. */
    public static Map<String, List<String>> missingComputeConstraints(JsonNode pod, Iterable<String> constrained) {
        Map<String, List<String>> missing = new TreeMap<>();
        for (String resourceName : constrained) {
            int dot = resourceName.indexOf('.');
            String kind = dot < 0 ? "requests" : resourceName.substring(0, dot);
            String resource = dot < 0 ? resourceName : resourceName.substring(dot + 1);
            if (!(kind.equals("requests") || kind.equals("limits")) || !(resource.equals("cpu") || resource.equals("memory"))) {
                continue;
            }
            for (String list : List.of("initContainers", "containers")) {
                for (JsonNode container : pod.path("spec").path(list)) {
                    if (container.path("resources").path(kind).path(resource).isMissingNode()) {
                        missing.computeIfAbsent(resourceName, ignored -> new java.util.ArrayList<>()).add(container.path("name").asText());
                    }
                }
            }
        }
        return missing;
    }
}
