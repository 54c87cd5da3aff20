package io.k4j.apiserver.registry.core.pod;

import com.fasterxml.jackson.databind.JsonNode;
import io.k4j.api.quantity.Quantity;
import io.k4j.apiserver.registry.core.Trees;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The quality-of-service class of a pod, computed from cpu and memory requests and limits as upstream's {@code GetPodQOS}. */
final class PodQos {
    private static final Set<String> COMPUTE_RESOURCES = Set.of("cpu", "memory");

    private PodQos() {}

    static String qosClass(JsonNode spec) {
        Map<String, BigDecimal> requests = new HashMap<>();
        Map<String, BigDecimal> limits = new HashMap<>();
        boolean guaranteed = true;
        for (String list : List.of("containers", "initContainers")) {
            for (JsonNode container : Trees.elements(spec, list)) {
                add(Trees.at(container, "resources", "requests"), requests);
                Set<String> limitsFound = add(Trees.at(container, "resources", "limits"), limits);
                if (!limitsFound.containsAll(COMPUTE_RESOURCES)) {
                    guaranteed = false;
                }
            }
        }
        if (requests.isEmpty() && limits.isEmpty()) {
            return "BestEffort";
        }
        if (guaranteed) {
            for (Map.Entry<String, BigDecimal> request : requests.entrySet()) {
                BigDecimal limit = limits.get(request.getKey());
                if (limit == null || limit.compareTo(request.getValue()) != 0) {
                    guaranteed = false;
                }
            }
        }
        return guaranteed && requests.size() == limits.size() ? "Guaranteed" : "Burstable";
    }

    /** Adds the positive cpu and memory quantities of {@code resources} to {@code totals}; returns the names added. */
    private static Set<String> add(JsonNode resources, Map<String, BigDecimal> totals) {
        Set<String> found = new HashSet<>();
        for (Map.Entry<String, JsonNode> entry : resources.properties()) {
            if (!COMPUTE_RESOURCES.contains(entry.getKey())) {
                continue;
            }
            Optional<Quantity> quantity = Trees.quantity(entry.getValue());
            if (quantity.isPresent() && quantity.get().signum() > 0) {
                found.add(entry.getKey());
                totals.merge(entry.getKey(), quantity.get().toBigDecimal(), BigDecimal::add);
            }
        }
        return found;
    }
}
