package io.k4j.e2e;

import static java.util.Objects.requireNonNull;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A real {@code k4j server} in a child process, started exactly as {@code ./k4j server} starts it (the packaged
 * program in launcher/target), listening on a free loopback port with its own data directory. Its maximum heap is
 * 1g unless the system property {@code k4j.server.heap} says otherwise (the benchmarks' large clusters need more).
 * Not thread-safe: one test class drives one server.
 */
public final class K4jServer implements AutoCloseable {
    private final Path dataDirectory;
    private final List<String> extraArguments;
    private final int port;
    private Process process;
    private Duration readyAfter = Duration.ZERO;

    private K4jServer(Path dataDirectory, int port, List<String> extraArguments) {
        this.dataDirectory = requireNonNull(dataDirectory, "dataDirectory is null");
        this.port = port;
        this.extraArguments = List.copyOf(extraArguments);
    }

    /** Starts a server on a new data directory and waits until it is ready. */
    public static K4jServer start(Path dataDirectory, String... extraArguments) {
        K4jServer server = new K4jServer(dataDirectory, freeLoopbackPort(), List.of(extraArguments));
        server.startProcess();
        return server;
    }

    public Path kubeconfig() {
        return dataDirectory.resolve("admin.kubeconfig");
    }

    public Path dataDirectory() {
        return dataDirectory;
    }

    public int port() {
        return port;
    }

    /** How long the last start took from launching the process to a successful {@code /readyz}. */
    public Duration readyAfter() {
        return readyAfter;
    }

    public long pid() {
        return process.pid();
    }

    /** The server process's resident set size in bytes, from /proc. */
    public long residentSetBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
            throw new IllegalStateException("no VmRSS for process " + process.pid());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Kubectl kubectl() {
        return new Kubectl(kubeconfig());
    }

    /** Kills the process with SIGKILL (no shutdown hooks), as a crash would. */
    public void kill() {
        process.destroyForcibly();
        waitForExit();
    }

    /** Starts the process again on the same data directory and port and waits until it is ready. */
    public void restart() {
        if (process.isAlive()) {
            process.destroy();
            waitForExit();
        }
        startProcess();
    }

    private void startProcess() {
        Path launcherDirectory = Path.of(requireNonNull(System.getProperty("k4j.launcher.dir"), "system property k4j.launcher.dir is not set"));
        Path jar = launcherDirectory.resolve("k4j-launcher.jar");
        if (!Files.exists(jar)) {
            throw new IllegalStateException(jar + " is missing: build the launcher first (mvn package)");
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(
                java, "-Xmx" + System.getProperty("k4j.server.heap", "1g"), "--enable-native-access=ALL-UNNAMED", "-cp", jar + ":" + launcherDirectory.resolve("lib") + "/*", "io.k4j.launcher.Main", "server",
                "--data-dir", dataDirectory.toString(),
                "--bind-address", "127.0.0.1",
                "--secure-port", Integer.toString(port),
                "--write-kubeconfig", dataDirectory.resolve("user.kubeconfig").toString()));
        command.addAll(extraArguments);
        long launched = System.nanoTime();
        try {
            Files.createDirectories(dataDirectory);
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dataDirectory.resolve("server.log").toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        await("k4j server on port " + port + " ready")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    if (!process.isAlive()) {
                        throw new IllegalStateException("k4j server exited with " + process.exitValue() + "; see " + dataDirectory.resolve("server.log"));
                    }
                    return Files.exists(kubeconfig()) && kubectl().run("get", "--raw", "/readyz").exitCode() == 0;
                });
        readyAfter = Duration.ofNanos(System.nanoTime() - launched);
    }

    private void waitForExit() {
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping the server", e);
        }
    }

    @Override
    public void close() {
        if (process != null && process.isAlive()) {
            process.destroy();
            waitForExit();
        }
    }

    private static int freeLoopbackPort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
