package io.k4j.scheduler.plugins.podtopologyspread;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import java.util.function.Predicate;

/**
 * A parsed topology spread constraint.
 *
 * @param maxSkew the allowed difference between the fullest and emptiest domain
 * @param topologyKey the node label that defines the domains
 * @param selector which pods count
 * @param minDomains below this many domains the global minimum counts as 0
 * @param honorNodeAffinity whether nodes the pod's node affinity excludes are left out of the counts (default Honor)
 * @param honorNodeTaints whether nodes with taints the pod does not tolerate are left out (default Ignore)
 */
record SpreadConstraint(int maxSkew, String topologyKey, Predicate<Map<String, String>> selector, int minDomains,
        boolean honorNodeAffinity, boolean honorNodeTaints) {
    SpreadConstraint {
        requireNonNull(topologyKey, "topologyKey is null");
        requireNonNull(selector, "selector is null");
    }
}
