package io.k4j.apiserver.authorization.rbac;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.selection.LabelSelector;
import io.k4j.api.selection.SelectorParseException;
import io.k4j.apiserver.authentication.UserInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An immutable, pre-parsed view of all RBAC objects at one moment: roles by namespace and name, cluster roles by
 * name (with aggregation already applied, so the authorizer sees aggregated rules even before the aggregation
 * controller has written them), cluster role bindings and role bindings by namespace. Thread-safe.
 */
public final class PolicySnapshot {
    public static final PolicySnapshot EMPTY = new PolicySnapshot(Map.of(), Map.of(), List.of(), Map.of());
    /** Enough for every component and node identity of a large cluster; past it, lookups are computed each time. */
    private static final int MAX_REMEMBERED_IDENTITIES = 8192;

    private final Map<String, List<PolicyRule>> clusterRoles;
    private final Map<String, List<PolicyRule>> roles;
    private final List<Binding> clusterRoleBindings;
    private final Map<String, List<Binding>> roleBindings;
    private final Map<Identity, List<Binding>> clusterRoleBindingsByIdentity = new ConcurrentHashMap<>();

    PolicySnapshot(Map<String, List<PolicyRule>> clusterRoles, Map<String, List<PolicyRule>> roles, List<Binding> clusterRoleBindings, Map<String, List<Binding>> roleBindings) {
        this.clusterRoles = Map.copyOf(requireNonNull(clusterRoles, "clusterRoles is null"));
        this.roles = Map.copyOf(requireNonNull(roles, "roles is null"));
        this.clusterRoleBindings = List.copyOf(requireNonNull(clusterRoleBindings, "clusterRoleBindings is null"));
        this.roleBindings = Map.copyOf(requireNonNull(roleBindings, "roleBindings is null"));
    }

    /** Builds a snapshot from the objects' JSON. */
    public static PolicySnapshot of(List<ObjectNode> clusterRoleObjects, List<ObjectNode> roleObjects, List<ObjectNode> clusterRoleBindingObjects, List<ObjectNode> roleBindingObjects) {
        Map<String, List<PolicyRule>> clusterRoles = ClusterRoleAggregation.effectiveRules(clusterRoleObjects);
        Map<String, List<PolicyRule>> roles = new HashMap<>();
        for (ObjectNode role : roleObjects) {
            JsonNode metadata = role.path("metadata");
            roles.put(metadata.path("namespace").asText("") + "/" + metadata.path("name").asText(""), PolicyRule.listFromJson(role.path("rules")));
        }
        List<Binding> clusterRoleBindings = new ArrayList<>();
        for (ObjectNode binding : clusterRoleBindingObjects) {
            clusterRoleBindings.add(Binding.fromJson(binding));
        }
        Map<String, List<Binding>> roleBindings = new TreeMap<>();
        for (ObjectNode object : roleBindingObjects) {
            Binding binding = Binding.fromJson(object);
            roleBindings.computeIfAbsent(binding.namespace(), ignored -> new ArrayList<>()).add(binding);
        }
        Map<String, List<Binding>> frozen = new HashMap<>();
        roleBindings.forEach((namespace, bindings) -> frozen.put(namespace, List.copyOf(bindings)));
        return new PolicySnapshot(clusterRoles, roles, clusterRoleBindings, frozen);
    }

    public Optional<List<PolicyRule>> clusterRole(String name) {
        return Optional.ofNullable(clusterRoles.get(name));
    }

    public Optional<List<PolicyRule>> role(String namespace, String name) {
        return Optional.ofNullable(roles.get(namespace + "/" + name));
    }

    /**
     * The cluster role bindings with a subject that applies to {@code user}, in their order. Kept per identity for the
     * life of this snapshot: a few identities (the components, the nodes) make most requests, and each request would
     * otherwise match the user against every subject of every binding.
     */
    public List<Binding> clusterRoleBindingsFor(UserInfo user) {
        Identity identity = new Identity(user.name(), user.groups());
        List<Binding> bindings = clusterRoleBindingsByIdentity.get(identity);
        if (bindings == null) {
            bindings = clusterRoleBindings.stream()
                    .filter(binding -> binding.subjects().stream().anyMatch(subject -> subject.appliesTo(user, binding.namespace())))
                    .toList();
            if (clusterRoleBindingsByIdentity.size() < MAX_REMEMBERED_IDENTITIES) {
                clusterRoleBindingsByIdentity.put(identity, bindings);
            }
        }
        return bindings;
    }

    public List<Binding> roleBindings(String namespace) {
        return roleBindings.getOrDefault(namespace, List.of());
    }

    /** What decides whether a binding's subjects apply to a user: its name and groups. */
    private record Identity(String name, List<String> groups) {}

    /** ClusterRole aggregation: the union of the rules of the cluster roles an aggregation rule selects. */
    static final class ClusterRoleAggregation {
        private ClusterRoleAggregation() {}

        /** Every cluster role's effective rules, aggregated roles resolved transitively (cycles are cut). */
        static Map<String, List<PolicyRule>> effectiveRules(List<ObjectNode> clusterRoles) {
            Map<String, ObjectNode> byName = new TreeMap<>();
            for (ObjectNode role : clusterRoles) {
                byName.put(role.path("metadata").path("name").asText(""), role);
            }
            Map<String, List<PolicyRule>> result = new HashMap<>();
            for (String name : byName.keySet()) {
                resolve(name, byName, result, new HashSet<>());
            }
            return result;
        }

        private static List<PolicyRule> resolve(String name, Map<String, ObjectNode> byName, Map<String, List<PolicyRule>> resolved, Set<String> visiting) {
            List<PolicyRule> done = resolved.get(name);
            if (done != null) {
                return done;
            }
            ObjectNode role = byName.get(name);
            JsonNode aggregationRule = role.path("aggregationRule");
            if (!aggregationRule.isObject() || !visiting.add(name)) {
                List<PolicyRule> own = PolicyRule.listFromJson(role.path("rules"));
                if (!aggregationRule.isObject()) {
                    resolved.put(name, own);
                }
                return own;
            }
            // The aggregated role's stored rules are only the controller's last result; recompute from the sources so
            // that rules removed from a source stop counting at once.
            // Parsed once per aggregated role, not once per candidate role: the policy is rebuilt up to once a second
            // while requests come, and each rebuild parsed every selector again for each of the ~70 bootstrap roles.
            List<LabelSelector> selectors = selectors(aggregationRule);
            Set<PolicyRule> rules = new LinkedHashSet<>();
            for (Map.Entry<String, ObjectNode> candidate : byName.entrySet()) {
                if (candidate.getKey().equals(name) || !selected(selectors, candidate.getValue())) {
                    continue;
                }
                rules.addAll(resolve(candidate.getKey(), byName, resolved, visiting));
            }
            visiting.remove(name);
            List<PolicyRule> list = List.copyOf(rules);
            resolved.put(name, list);
            return list;
        }

        /** The aggregation rule's selectors; one that cannot be converted selects nothing, as upstream's aggregation controller skips it. */
        private static List<LabelSelector> selectors(JsonNode aggregationRule) {
            List<LabelSelector> selectors = new ArrayList<>();
            for (JsonNode selector : aggregationRule.path("clusterRoleSelectors")) {
                try {
                    selectors.add(LabelSelector.fromJson(selector));
                } catch (SelectorParseException e) {
                    // Skipped: selects nothing.
                }
            }
            return selectors;
        }

        private static boolean selected(List<LabelSelector> selectors, JsonNode clusterRole) {
            JsonNode labels = clusterRole.path("metadata").path("labels");
            for (LabelSelector selector : selectors) {
                if (selector.matchesLabelsNode(labels)) {
                    return true;
                }
            }
            return false;
        }
    }
}
