package io.k4j.e2e;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Removes every KUBE-* chain from the host's iptables (nat, filter, mangle) and every rule of the built-in chains that
 * jumps to one, as upstream's {@code kube-proxy --cleanup} does, in one {@code iptables-restore --noflush} per table
 * so that the host's other rules stay untouched. For tests that run kube-proxy on the host. Stateless.
 */
final class HostKubeChains {
    private static final List<String> TABLES = List.of("nat", "filter", "mangle");
    private static final List<String> BUILT_IN_CHAINS = List.of("PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING");

    private HostKubeChains() {}

    /** Removes them; a table without KUBE-* chains is not written. */
    static void remove() throws IOException, InterruptedException {
        for (String table : TABLES) {
            String input = removalInput(table, HostCommand.run("iptables-save", "-t", table));
            if (!input.isEmpty()) {
                HostCommand.runWithInput(input, List.of("iptables-restore", "--noflush"));
            }
        }
    }

    /** The iptables-restore input that removes {@code table}'s KUBE-* chains, empty when it has none. */
    static String removalInput(String table, String saved) {
        List<String> jumps = new ArrayList<>();
        List<String> chains = new ArrayList<>();
        for (String line : saved.split("\n")) {
            if (line.startsWith(":KUBE-")) {
                chains.add(line.substring(1, line.indexOf(' ')));
            } else if (line.startsWith("-A ") && line.contains(" -j KUBE-")
                    && BUILT_IN_CHAINS.contains(line.split(" ")[1])) {
                jumps.add("-D" + line.substring(2));
            }
        }
        if (chains.isEmpty() && jumps.isEmpty()) {
            return "";
        }
        StringBuilder input = new StringBuilder("*").append(table).append('\n');
        jumps.forEach(jump -> input.append(jump).append('\n'));
        // Declaring a chain in --noflush mode flushes it, so that all are empty before the first is deleted.
        chains.forEach(chain -> input.append(':').append(chain).append(" - [0:0]\n"));
        chains.forEach(chain -> input.append("-X ").append(chain).append('\n'));
        return input.append("COMMIT\n").toString();
    }
}
