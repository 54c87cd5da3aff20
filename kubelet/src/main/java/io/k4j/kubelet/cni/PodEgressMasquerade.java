package io.k4j.kubelet.cni;

import static java.util.Objects.requireNonNull;

import io.k4j.kubelet.host.HostCommand;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The node's one masquerade rule for what its pods send out of the pod CIDR, as kubenet and flannel install it: pod
 * addresses exist only behind the node's bridge, so traffic leaving the pod CIDR (other than multicast) takes the
 * address of the interface it leaves by. One rule in {@code nat POSTROUTING} replaces the chain of rules the bridge
 * plugin's {@code ipMasq} adds and removes per pod. {@link #ensure} checks before it appends, so a restarted kubelet
 * adds nothing. Thread-safe.
 */
public final class PodEgressMasquerade {
    /** Runs a command to its end. */
    public interface CommandRunner {
        HostCommand.Result run(List<String> command) throws IOException;
    }

    static final String COMMENT = "k4j: masquerade pod traffic leaving the pod CIDR";
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);

    private final CommandRunner runner;

    public PodEgressMasquerade(CommandRunner runner) {
        this.runner = requireNonNull(runner, "runner is null");
    }

    /** The rule in the host's own {@code iptables} (or {@code ip6tables}). */
    public static PodEgressMasquerade onHost() {
        return new PodEgressMasquerade(command -> HostCommand.run(command, COMMAND_TIMEOUT));
    }

    /**
     * Installs the rule for {@code podCidr} unless it is there.
     *
     * @throws IOException when iptables cannot run or refuses the rule
     */
    public void ensure(String podCidr) throws IOException {
        requireNonNull(podCidr, "podCidr is null");
        boolean ipv6 = podCidr.contains(":");
        List<String> rule = rule(podCidr);
        List<String> check = command(ipv6, "-C", rule);
        HostCommand.Result checked = runner.run(check);
        if (checked.exitCode() == 0) {
            return;
        }
        // Exit status 1 is "no such rule"; anything else (no nat table, a match iptables lacks) fails the append too.
        if (checked.exitCode() != 1) {
            throw checked.failure(check);
        }
        List<String> append = command(ipv6, "-A", rule);
        HostCommand.Result appended = runner.run(append);
        if (appended.exitCode() != 0) {
            throw appended.failure(append);
        }
    }

    /**
     * The rule's match and target: what the bridge plugin's per-pod chain masquerades (not to the pod CIDR, not
     * multicast), in one rule, since iptables takes one {@code -d} per rule.
     */
    static List<String> rule(String podCidr) {
        return List.of("-s", podCidr, "!", "-d", podCidr, "-m", "addrtype", "!", "--dst-type", "MULTICAST",
                "-m", "comment", "--comment", COMMENT, "-j", "MASQUERADE");
    }

    private static List<String> command(boolean ipv6, String operation, List<String> rule) {
        List<String> command = new ArrayList<>(List.of(ipv6 ? "ip6tables" : "iptables", "-w", "5", "-t", "nat", operation, "POSTROUTING"));
        command.addAll(rule);
        return command;
    }
}
