package io.k4j.proxy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/** A network namespace of its own for a test, so real iptables runs without touching the host's tables. */
final class NetworkNamespace implements AutoCloseable {
    private final String name;
    private final List<Process> processes = new ArrayList<>();

    private NetworkNamespace(String name) {
        this.name = name;
    }

    static boolean canCreate() {
        return "root".equals(System.getProperty("user.name")) && IptablesExecutor.findExecutable("ip") != null
                && IptablesExecutor.findExecutable("iptables-restore") != null;
    }

    static NetworkNamespace create() throws IOException, InterruptedException {
        NetworkNamespace namespace = new NetworkNamespace("k4jtest-" + UUID.randomUUID().toString().substring(0, 8));
        run(List.of("ip", "netns", "add", namespace.name));
        namespace.exec("ip", "link", "set", "lo", "up");
        return namespace;
    }

    String name() {
        return name;
    }

    List<String> prefix() {
        return List.of("ip", "netns", "exec", name);
    }

    /** Runs a command inside the namespace; fails on a non-zero exit. */
    String exec(String... command) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>(prefix());
        full.addAll(List.of(command));
        return run(full);
    }

    /** Runs a command inside the namespace and returns its exit code and output. */
    Outcome attempt(String... command) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>(prefix());
        full.addAll(List.of(command));
        Process process = new ProcessBuilder(full).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
        return new Outcome(process.exitValue(), output);
    }

    /** Starts a long-running command inside the namespace; stopped on close. */
    void background(String... command) throws IOException {
        List<String> full = new ArrayList<>(prefix());
        full.addAll(List.of(command));
        processes.add(new ProcessBuilder(full).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start());
    }

    static String run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + output);
        }
        return output;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        for (Process process : processes) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        run(List.of("ip", "netns", "delete", name));
    }

    record Outcome(int exitCode, String output) {}
}
