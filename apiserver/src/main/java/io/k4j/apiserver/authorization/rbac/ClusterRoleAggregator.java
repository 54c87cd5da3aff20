package io.k4j.apiserver.authorization.rbac;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.registry.generic.ObjectStore;
import io.k4j.apiserver.registry.generic.Registry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Writes the rules of aggregated ClusterRoles ({@code aggregationRule.clusterRoleSelectors}) as upstream's
 * clusterrole-aggregation controller: the union, in name order and without duplicates, of the rules of every other
 * ClusterRole whose labels a selector matches. The launcher runs {@link #reconcile()} at startup and whenever a
 * ClusterRole changes; it is idempotent and writes only roles whose rules differ. The authorizer does not depend on
 * it ({@link PolicySnapshot} aggregates by itself); it keeps the stored objects truthful for {@code kubectl get}.
 * Thread-safe (each call reads afresh; updates are guarded by resourceVersion).
 */
public final class ClusterRoleAggregator {
    private final Registry registry;

    public ClusterRoleAggregator(Registry registry) {
        this.registry = requireNonNull(registry, "registry is null");
    }

    /** @return the names of the ClusterRoles whose rules were updated */
    public List<String> reconcile() {
        ObjectStore store = registry.require(RbacPolicySource.CLUSTER_ROLES);
        List<ObjectNode> clusterRoles = store.list("");
        Map<String, List<PolicyRule>> effective = PolicySnapshot.ClusterRoleAggregation.effectiveRules(clusterRoles);
        List<String> updated = new ArrayList<>();
        for (ObjectNode role : clusterRoles) {
            if (!role.path("aggregationRule").isObject()) {
                continue;
            }
            String name = role.path("metadata").path("name").asText();
            List<PolicyRule> wanted = effective.getOrDefault(name, List.of());
            if (PolicyRule.listFromJson(role.path("rules")).equals(wanted)) {
                continue;
            }
            try {
                store.guaranteedUpdate("", name, "", current -> {
                    ArrayNode rules = current.putArray("rules");
                    wanted.forEach(rule -> rules.add(rule.toJson()));
                    return current;
                });
                updated.add(name);
            } catch (StatusException e) {
                if (e.code() != 404) {
                    throw e;
                }
                // deleted meanwhile: nothing to aggregate
            }
        }
        return List.copyOf(updated);
    }

    /** Whether a ClusterRole change can affect aggregation (it has labels or an aggregation rule), to skip no-ops. */
    public static boolean relevant(JsonNode clusterRole) {
        return clusterRole.path("aggregationRule").isObject() || clusterRole.path("metadata").path("labels").size() > 0;
    }
}
