package io.k4j.apiserver.authorization.rbac;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.apiserver.authorization.AuthorizationAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * One RBAC rule ({@code rbac.authorization.k8s.io/v1} PolicyRule) and upstream's matching semantics: {@code *}
 * matches any verb, group or resource; a resource entry {@code pods/log} names a subresource and {@code *}{@code /scale}
 * a subresource of any resource; an empty {@code resourceNames} matches every name; a non-resource URL ending in
 * {@code *} matches by prefix. Immutable.
 */
public record PolicyRule(List<String> verbs, List<String> apiGroups, List<String> resources, List<String> resourceNames, List<String> nonResourceUrls) {
    public static final String ALL = "*";

    public PolicyRule {
        verbs = List.copyOf(requireNonNull(verbs, "verbs is null"));
        apiGroups = List.copyOf(requireNonNull(apiGroups, "apiGroups is null"));
        resources = List.copyOf(requireNonNull(resources, "resources is null"));
        resourceNames = List.copyOf(requireNonNull(resourceNames, "resourceNames is null"));
        nonResourceUrls = List.copyOf(requireNonNull(nonResourceUrls, "nonResourceUrls is null"));
    }

    public static PolicyRule resourceRule(List<String> verbs, List<String> apiGroups, List<String> resources) {
        return new PolicyRule(verbs, apiGroups, resources, List.of(), List.of());
    }

    public static PolicyRule nonResourceRule(List<String> verbs, List<String> urls) {
        return new PolicyRule(verbs, List.of(), List.of(), List.of(), urls);
    }

    public PolicyRule withResourceNames(List<String> names) {
        return new PolicyRule(verbs, apiGroups, resources, names, nonResourceUrls);
    }

    /** Whether this rule allows the request, as upstream's {@code RuleAllows}. */
    public boolean allows(AuthorizationAttributes attributes) {
        if (!matchesVerb(attributes.verb())) {
            return false;
        }
        if (!attributes.resourceRequest()) {
            return matchesNonResourceUrl(attributes.path());
        }
        String combined = attributes.subresource().isEmpty() ? attributes.resource() : attributes.resource() + "/" + attributes.subresource();
        return matchesGroup(attributes.apiGroup()) && matchesResource(combined, attributes.subresource()) && matchesName(attributes.name());
    }

    private boolean matchesVerb(String verb) {
        for (String ruleVerb : verbs) {
            if (ruleVerb.equals(ALL) || ruleVerb.equals(verb)) {
                return true;
            }
        }
        return false;
    }

    private boolean matchesGroup(String group) {
        for (String ruleGroup : apiGroups) {
            if (ruleGroup.equals(ALL) || ruleGroup.equals(group)) {
                return true;
            }
        }
        return false;
    }

    private boolean matchesResource(String combined, String subresource) {
        for (String ruleResource : resources) {
            if (ruleResource.equals(ALL) || ruleResource.equals(combined)) {
                return true;
            }
            if (!subresource.isEmpty() && ruleResource.length() == subresource.length() + 2
                    && ruleResource.startsWith("*/") && ruleResource.endsWith(subresource)) {
                return true;
            }
        }
        return false;
    }

    private boolean matchesName(String name) {
        return resourceNames.isEmpty() || resourceNames.contains(name);
    }

    private boolean matchesNonResourceUrl(String path) {
        for (String url : nonResourceUrls) {
            if (url.equals(ALL) || url.equals(path)) {
                return true;
            }
            if (url.endsWith("*") && path.startsWith(url.substring(0, url.length() - 1))) {
                return true;
            }
        }
        return false;
    }

    /** Reads a rule from its JSON form; absent lists are empty. */
    public static PolicyRule fromJson(JsonNode node) {
        return new PolicyRule(strings(node.path("verbs")), strings(node.path("apiGroups")), strings(node.path("resources")),
                strings(node.path("resourceNames")), strings(node.path("nonResourceURLs")));
    }

    public static List<PolicyRule> listFromJson(JsonNode rules) {
        List<PolicyRule> result = new ArrayList<>();
        for (JsonNode rule : rules) {
            result.add(fromJson(rule));
        }
        return List.copyOf(result);
    }

    /** The JSON form, with empty lists left out as upstream serialises them. */
    public ObjectNode toJson() {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        put(node, "apiGroups", apiGroups, !resources.isEmpty());
        put(node, "nonResourceURLs", nonResourceUrls, false);
        put(node, "resourceNames", resourceNames, false);
        put(node, "resources", resources, false);
        put(node, "verbs", verbs, true);
        return node;
    }

    private static void put(ObjectNode node, String field, List<String> values, boolean keepEmpty) {
        if (values.isEmpty() && !keepEmpty) {
            return;
        }
        ArrayNode array = node.putArray(field);
        values.forEach(array::add);
    }

    private static List<String> strings(JsonNode array) {
        List<String> values = new ArrayList<>();
        for (JsonNode value : array) {
            values.add(value.asText());
        }
        return values;
    }
}
