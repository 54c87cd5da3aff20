package io.k4j.proxy;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The desired content of k4j's chains in the nat and filter tables: per chain (in declaration order) its rules as
 * {@code iptables-restore} lines ({@code -A CHAIN ...}). Chains not named here belong to the node and are never
 * touched. Immutable.
 */
public record IptablesRules(Table nat, Table filter) {
    public IptablesRules {
        requireNonNull(nat, "nat is null");
        requireNonNull(filter, "filter is null");
    }

    /** One table's chains and their rules, in order. Immutable. */
    public record Table(String name, Map<String, List<String>> chains) {
        public Table {
            requireNonNull(name, "name is null");
            Map<String, List<String>> copy = new LinkedHashMap<>();
            chains.forEach((chain, rules) -> copy.put(chain, List.copyOf(rules)));
            chains = Collections.unmodifiableMap(copy);
        }

        public Set<String> chainNames() {
            return chains.keySet();
        }
    }

    /**
     * The {@code iptables-restore --noflush} input that brings the tables from {@code applied} (what the last
     * successful restore wrote; {@code null} forces every chain to be written) to these rules: a chain is declared
     * (which flushes it) and refilled only when its rules differ from what was applied, and the chains named in
     * {@code staleNatChains} are flushed and deleted after the new rules no longer jump to them. A table with nothing to
     * write is left out (empty input when nothing changed at all).
     */
    public String restoreInput(IptablesRules applied, Set<String> staleNatChains) {
        StringBuilder out = new StringBuilder();
        appendTable(out, filter, applied == null ? null : applied.filter, Set.of());
        appendTable(out, nat, applied == null ? null : applied.nat, staleNatChains);
        return out.toString();
    }

    private static void appendTable(StringBuilder out, Table desired, Table applied, Set<String> stale) {
        List<String> changed = desired.chains.keySet().stream()
                .filter(chain -> applied == null || !desired.chains.get(chain).equals(applied.chains.get(chain)))
                .toList();
        List<String> deleted = stale.stream().filter(chain -> !desired.chains.containsKey(chain)).sorted().toList();
        if (applied != null && changed.isEmpty() && deleted.isEmpty()) {
            // Nothing to do in this table: leaving it out spares iptables-restore reading and committing it.
            return;
        }
        out.append('*').append(desired.name).append('\n');
        for (String chain : changed) {
            out.append(':').append(chain).append(" - [0:0]\n");
        }
        for (String chain : deleted) {
            out.append(':').append(chain).append(" - [0:0]\n");
        }
        for (String chain : changed) {
            for (String rule : desired.chains.get(chain)) {
                out.append(rule).append('\n');
            }
        }
        for (String chain : deleted) {
            out.append("-X ").append(chain).append('\n');
        }
        out.append("COMMIT\n");
    }
}
