package io.k4j.e2e;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code k4j agent} in a child process, started as {@code ./k4j agent} starts it, joining a {@link K4jServer} as
 * an extra node in a {@link RealNodeSlots} slot the caller holds (the server must use the slot's cluster CIDR).
 * kube-proxy is off: tests never program the host's iptables. Closing it stops the agent (SIGTERM, as a service manager
 * stops it) and whatever of its data directory still runs (containerd, registry). Not thread-safe.
 */
public final class K4jAgent implements AutoCloseable {
    private final Path dataDirectory;
    private final Process process;

    private K4jAgent(Path dataDirectory, Process process) {
        this.dataDirectory = requireNonNull(dataDirectory, "dataDirectory is null");
        this.process = requireNonNull(process, "process is null");
    }

    /** Starts an agent that joins {@code server} as {@code nodeName} with the server's join token file; returns at once. */
    static K4jAgent start(K4jServer server, RealNodeSlots.Slot slot, Path dataDirectory, String nodeName) {
        List<String> arguments = new ArrayList<>(List.of("--server", "https://127.0.0.1:" + server.port(),
                "--token-file", server.dataDirectory().resolve("token").toString(),
                "--data-dir", dataDirectory.toString(),
                "--node-name", nodeName,
                "--disable-kube-proxy"));
        arguments.addAll(slot.nodeArguments());
        try {
            Files.createDirectories(dataDirectory);
            Process process = new ProcessBuilder(command(arguments))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dataDirectory.resolve("agent.log").toFile()))
                    .start();
            return new K4jAgent(dataDirectory, process);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The outcome of an agent run that is expected to end by itself (e.g. a refused join). */
    record Exit(int exitCode, String output) {}

    /** Runs {@code k4j agent} with {@code arguments} until it exits, at most {@code timeout}. */
    static Exit runToExit(List<String> arguments, Duration timeout) {
        try {
            Path output = Files.createTempFile("k4j-agent", ".log");
            try {
                Process process = new ProcessBuilder(command(arguments))
                        .redirectErrorStream(true)
                        .redirectOutput(output.toFile())
                        .start();
                if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly().waitFor();
                    throw new AssertionError("k4j agent did not exit within " + timeout + ": " + Files.readString(output));
                }
                return new Exit(process.exitValue(), Files.readString(output));
            } finally {
                Files.deleteIfExists(output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for k4j agent", e);
        }
    }

    private static List<String> command(List<String> arguments) {
        Path launcherDirectory = LauncherCommand.directory();
        List<String> command = LauncherCommand.jvm(launcherDirectory, "512m");
        command.addAll(LauncherCommand.main(launcherDirectory, "agent"));
        command.addAll(arguments);
        return command;
    }

    public Path dataDirectory() {
        return dataDirectory;
    }

    /** The node's own kubeconfig ({@code system:node:<name>}) that the agent wrote after the join. */
    public Path kubeletKubeconfig() {
        return dataDirectory.resolve("kubelet.kubeconfig");
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public String log() {
        try {
            return Files.readString(dataDirectory.resolve("agent.log"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stops the agent as a service manager does (SIGTERM) and waits until it ended; false if it did not within {@code timeout}. */
    public boolean stop(Duration timeout) {
        process.destroy();
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The processes still running whose command line names the agent's data directory (containerd, registry). */
    public List<ProcessHandle> leftoverProcesses() {
        String directory = dataDirectory.toString();
        return ProcessHandle.allProcesses()
                .filter(other -> other.isAlive() && other.info().commandLine().orElse("").contains(directory))
                .toList();
    }

    @Override
    public void close() {
        try {
            if (process.isAlive()) {
                process.destroy();
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor();
                }
            }
            // What the agent started in sessions of its own (containerd, registry) outlives a killed agent; stop it.
            leftoverProcesses().forEach(ProcessHandle::destroy);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
