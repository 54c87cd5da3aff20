package io.k4j.proxy;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Applies generated rules to the kernel with the iptables tools: {@code iptables-restore --noflush} rewrites only the
 * chains its input declares, atomically per table, so the node's own rules stay as they are. Every command runs behind
 * a configurable prefix (e.g. {@code ip netns exec <ns>}) so tests can work in a network namespace of their own. Not
 * thread-safe: one sync loop owns it.
 */
public final class IptablesExecutor {
    private static final long COMMAND_TIMEOUT_SECONDS = 60;

    /** The jumps from the built-in chains into k4j's chains, as upstream's kube-proxy installs them. */
    static final List<JumpRule> JUMP_RULES = List.of(
            new JumpRule("filter", "INPUT", RuleGenerator.KUBE_EXTERNAL_SERVICES, "kubernetes externally-visible service portals", true),
            new JumpRule("filter", "FORWARD", RuleGenerator.KUBE_EXTERNAL_SERVICES, "kubernetes externally-visible service portals", true),
            new JumpRule("filter", "OUTPUT", RuleGenerator.KUBE_SERVICES, "kubernetes service portals", true),
            new JumpRule("filter", "FORWARD", RuleGenerator.KUBE_SERVICES, "kubernetes service portals", true),
            new JumpRule("filter", "FORWARD", RuleGenerator.KUBE_FORWARD, "kubernetes forwarding rules", false),
            new JumpRule("nat", "OUTPUT", RuleGenerator.KUBE_SERVICES, "kubernetes service portals", false),
            new JumpRule("nat", "PREROUTING", RuleGenerator.KUBE_SERVICES, "kubernetes service portals", false),
            new JumpRule("nat", "POSTROUTING", RuleGenerator.KUBE_POSTROUTING, "kubernetes postrouting rules", false));

    private final List<String> commandPrefix;

    /** @param commandPrefix what to run the iptables tools behind (empty for the host's tables) */
    public IptablesExecutor(List<String> commandPrefix) {
        this.commandPrefix = List.copyOf(commandPrefix);
    }

    /** Fails with a message naming what to install when the iptables tools are not on this machine. */
    public static void requireIptables() {
        for (String tool : List.of("iptables", "iptables-save", "iptables-restore")) {
            if (findExecutable(tool) == null) {
                throw new IllegalStateException("kube-proxy needs " + tool + " but it is not installed (on Debian: apt-get install iptables)");
            }
        }
    }

    /** The absolute path of {@code tool} in the usual system directories and PATH, or null. */
    static Path findExecutable(String tool) {
        Set<String> directories = new LinkedHashSet<>(List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin"));
        String path = System.getenv("PATH");
        if (path != null) {
            directories.addAll(List.of(path.split(":")));
        }
        for (String directory : directories) {
            Path candidate = Path.of(directory).resolve(tool);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    /** Writes {@code input} with {@code iptables-restore --noflush}; all of a table's changes apply or none. */
    public void restore(String input) throws IOException {
        run(List.of("iptables-restore", "-w", "--noflush"), input, true);
    }

    /** The names of the chains in {@code table}, as {@code iptables-save} lists them. */
    public Set<String> chains(String table) throws IOException {
        Set<String> chains = new LinkedHashSet<>();
        for (String line : save(table).split("\n")) {
            if (line.startsWith(":")) {
                chains.add(line.substring(1, line.indexOf(' ') > 0 ? line.indexOf(' ') : line.length()));
            }
        }
        return chains;
    }

    /** The output of {@code iptables-save -t table}. */
    public String save(String table) throws IOException {
        return run(List.of("iptables-save", "-t", table), null, true).output();
    }

    /**
     * Makes sure the built-in chains jump into k4j's chains (once each, first in the chain). The target chains must
     * exist: call after the first restore.
     */
    public void ensureJumpRules() throws IOException {
        for (JumpRule jump : JUMP_RULES) {
            List<String> check = new ArrayList<>(List.of("iptables", "-w", "-t", jump.table(), "-C", jump.chain()));
            check.addAll(jump.arguments());
            if (run(check, null, false).exitCode() != 0) {
                List<String> insert = new ArrayList<>(List.of("iptables", "-w", "-t", jump.table(), "-I", jump.chain()));
                insert.addAll(jump.arguments());
                run(insert, null, true);
            }
        }
    }

    /** True when the {@code conntrack} tool is installed (Debian package {@code conntrack}). */
    public boolean hasConntrack() {
        return findExecutable("conntrack") != null;
    }

    /**
     * Deletes the connection-tracking entries that still send {@code protocol} traffic for {@code serviceIp} to a
     * removed endpoint: for UDP there is no connection to close, so without this a client keeps talking to the dead
     * backend until its entry times out. No entries to delete is not an error.
     */
    public void clearConntrack(String protocol, String serviceIp, String endpointIp) throws IOException {
        Result result = run(List.of("conntrack", "-D", "-p", protocol, "--orig-dst", serviceIp, "--dst-nat", endpointIp), null, false);
        if (result.exitCode() != 0 && !result.output().contains("0 flow entries have been deleted")) {
            throw new IOException("conntrack -D for " + serviceIp + " -> " + endpointIp + " failed: " + result.output().strip());
        }
    }

    /** Runs a command behind the prefix. */
    Result run(List<String> command, String input, boolean mustSucceed) throws IOException {
        List<String> full = new ArrayList<>(commandPrefix);
        full.addAll(command);
        Process process = new ProcessBuilder(full).redirectErrorStream(true).start();
        try (OutputStream stdin = process.getOutputStream()) {
            if (input != null) {
                stdin.write(input.getBytes(StandardCharsets.UTF_8));
            }
        }
        String output;
        try (InputStream stdout = process.getInputStream()) {
            output = new String(stdout.readAllBytes(), StandardCharsets.UTF_8);
        }
        try {
            if (!process.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException(String.join(" ", full) + " did not finish within " + COMMAND_TIMEOUT_SECONDS + "s");
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException(String.join(" ", full) + " interrupted", e);
        }
        if (mustSucceed && process.exitValue() != 0) {
            throw new IOException(String.join(" ", full) + " failed (exit " + process.exitValue() + "): " + output.strip());
        }
        return new Result(process.exitValue(), output);
    }

    record Result(int exitCode, String output) {}

    /** One jump from a built-in chain into a k4j chain; {@code newOnly} matches new connections only, as upstream. */
    record JumpRule(String table, String chain, String target, String comment, boolean newOnly) {
        JumpRule {
            requireNonNull(table, "table is null");
            requireNonNull(chain, "chain is null");
            requireNonNull(target, "target is null");
            requireNonNull(comment, "comment is null");
        }

        List<String> arguments() {
            List<String> arguments = new ArrayList<>(List.of("-m", "comment", "--comment", comment));
            if (newOnly) {
                arguments.addAll(List.of("-m", "conntrack", "--ctstate", "NEW"));
            }
            arguments.addAll(List.of("-j", target));
            return arguments;
        }
    }
}
