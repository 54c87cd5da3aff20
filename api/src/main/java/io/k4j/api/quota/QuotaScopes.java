package io.k4j.api.quota;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Whether a quota's scopes ({@code spec.scopes} and {@code spec.scopeSelector}) select an object. Scopes only
 * concern pods: a scoped quota tracks nothing else. Pure functions.
 */
public final class QuotaScopes {
    private QuotaScopes() {}

    public static boolean matches(JsonNode quota, String group, String resource, JsonNode object) {
        JsonNode scopes = quota.path("spec").path("scopes");
        JsonNode selector = quota.path("spec").path("scopeSelector").path("matchExpressions");
        if (scopes.isEmpty() && selector.isEmpty()) {
            return true;
        }
        if (!group.isEmpty() || !resource.equals("pods")) {
            return false;
        }
        for (JsonNode scope : scopes) {
            if (!scopeMatches(scope.asText(), "Exists", null, object)) {
                return false;
            }
        }
        for (JsonNode requirement : selector) {
            if (!scopeMatches(requirement.path("scopeName").asText(), requirement.path("operator").asText(), requirement.path("values"), object)) {
                return false;
            }
        }
        return true;
    }

    private static boolean scopeMatches(String scope, String operator, JsonNode values, JsonNode pod) {
        JsonNode spec = pod.path("spec");
        return switch (scope) {
            case "Terminating" -> spec.has("activeDeadlineSeconds") == operator.equals("Exists");
            case "NotTerminating" -> !spec.has("activeDeadlineSeconds") == operator.equals("Exists");
            case "BestEffort" -> isBestEffort(pod) == operator.equals("Exists");
            case "NotBestEffort" -> !isBestEffort(pod) == operator.equals("Exists");
            case "PriorityClass" -> priorityClassMatches(spec.path("priorityClassName").asText(""), operator, values);
            default -> false;
        };
    }

    private static boolean priorityClassMatches(String className, String operator, JsonNode values) {
        boolean listed = false;
        if (values != null) {
            for (JsonNode value : values) {
                listed |= value.asText().equals(className);
            }
        }
        return switch (operator) {
            case "In" -> listed;
            case "NotIn" -> !listed;
            case "Exists" -> !className.isEmpty();
            case "DoesNotExist" -> className.isEmpty();
            default -> false;
        };
    }

    /** A pod with no requests or limits on any container. */
    public static boolean isBestEffort(JsonNode pod) {
        for (String list : new String[] {"initContainers", "containers"}) {
            for (JsonNode container : pod.path("spec").path(list)) {
                JsonNode resources = container.path("resources");
                if (!resources.path("requests").isEmpty() || !resources.path("limits").isEmpty()) {
                    return false;
                }
            }
        }
        return true;
    }
}
