package io.k4j.storage.etcd;

import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.SECONDS;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A private single-member etcd ({@code /usr/bin/etcd}, Debian's {@code etcd-server}) for tests, benchmarks and the
 * start-up archive's training run: its own temporary data directory and free loopback client and peer ports. It can
 * be killed with SIGKILL and started again on the same data directory and ports, which is how tests check that
 * acknowledged writes survive a crash.
 *
 * <p>Not thread-safe: one thread drives it.
 */
public final class EtcdProcess implements AutoCloseable {
    /** Overrides the binary, for machines where etcd is installed elsewhere. */
    public static final String BINARY_PROPERTY = "k4j.etcd.binary";

    private static final Path DEFAULT_BINARY = Path.of("/usr/bin/etcd");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    /** Starts on fresh ports after a port was taken between choosing it and etcd binding it. */
    private static final int START_ATTEMPTS = 3;
    private static final Duration HEALTH_POLL_INTERVAL = Duration.ofMillis(50);
    private static final String MEMBER_NAME = "k4j-test";
    private static final long MIN_MEMORY_BACKED_BYTES = 2L << 30;

    private final Path binary;
    private final Path directory;
    private final int clientPort;
    private final int peerPort;
    private final HttpClient httpClient;
    /** Kills etcd when the JVM exits without closing it (a failed or timed-out run), so none is left behind. */
    private final Thread killOnExit = Thread.ofPlatform().unstarted(this::killQuietly);
    private Process process;

    private EtcdProcess(Path binary, Path directory, int clientPort, int peerPort) {
        this.binary = requireNonNull(binary, "binary is null");
        this.directory = requireNonNull(directory, "directory is null");
        this.clientPort = clientPort;
        this.peerPort = peerPort;
        this.httpClient = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    }

    /** Whether {@link #start()} finds an etcd binary to run. */
    public static boolean isInstalled() {
        return Files.isExecutable(binary());
    }

    private static Path binary() {
        return Path.of(System.getProperty(BINARY_PROPERTY, DEFAULT_BINARY.toString()));
    }

    /** Starts a fresh etcd and waits until it reports healthy. */
    public static EtcdProcess start() {
        Path binary = binary();
        if (!Files.isExecutable(binary)) {
            throw new IllegalStateException("etcd binary " + binary + " not found or not executable: install etcd-server "
                    + "(apt-get install etcd-server) or set -D" + BINARY_PROPERTY + "=<path>");
        }
        for (int attempt = 1; ; attempt++) {
            Path directory;
            try {
                directory = Files.createTempDirectory(memoryBackedTemporaryDirectory(), "k4j-etcd-");
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            EtcdProcess etcd = new EtcdProcess(binary, directory, freeLoopbackPort(), freeLoopbackPort());
            Runtime.getRuntime().addShutdownHook(etcd.killOnExit);
            try {
                etcd.launch();
                return etcd;
            }
            catch (RuntimeException | Error e) {
                etcd.close();
                // A port found free can be taken before etcd binds it, e.g. as the local end of another connection.
                if (attempt < START_ATTEMPTS && e.getMessage() != null && e.getMessage().contains("address already in use")) {
                    continue;
                }
                throw e;
            }
        }
    }

    /** The k4j datastore endpoint, {@code etcd://127.0.0.1:<port>}. */
    public String endpoint() {
        return "etcd://127.0.0.1:" + clientPort;
    }

    /** The client URL, {@code http://127.0.0.1:<port>}, for tools that want etcd's own form. */
    public URI clientUrl() {
        return URI.create("http://127.0.0.1:" + clientPort);
    }

    public Path dataDirectory() {
        return directory.resolve("data");
    }

    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Kills etcd with SIGKILL (no clean shutdown, as in a crash) and waits for it to be gone. */
    public void kill() {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        awaitExit(process);
        process = null;
    }

    /** Starts etcd again on the same data directory and ports, and waits until it is healthy. */
    public void restart() {
        kill();
        launch();
    }

    /** Stops etcd and deletes its data directory. */
    @Override
    public void close() {
        if (process != null) {
            process.destroy();
            try {
                if (!process.waitFor(10, SECONDS)) {
                    process.destroyForcibly();
                    awaitExit(process);
                }
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
            process = null;
        }
        deleteRecursively(directory);
        try {
            Runtime.getRuntime().removeShutdownHook(killOnExit);
        }
        catch (IllegalStateException e) {
            // The JVM is shutting down already; the hook runs or has run.
        }
    }

    private void killQuietly() {
        Process running = process;
        if (running != null) {
            running.destroyForcibly();
        }
    }

    private void launch() {
        String clientUrl = "http://127.0.0.1:" + clientPort;
        String peerUrl = "http://127.0.0.1:" + peerPort;
        List<String> command = List.of(
                binary.toString(),
                "--name=" + MEMBER_NAME,
                "--data-dir=" + dataDirectory(),
                "--listen-client-urls=" + clientUrl,
                "--advertise-client-urls=" + clientUrl,
                "--listen-peer-urls=" + peerUrl,
                "--initial-advertise-peer-urls=" + peerUrl,
                "--initial-cluster=" + MEMBER_NAME + "=" + peerUrl,
                "--initial-cluster-state=new",
                "--logger=zap",
                "--log-level=warn");
        try {
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()))
                    .start();
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot start " + binary, e);
        }
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!isHealthy()) {
            if (!process.isAlive()) {
                throw new IllegalStateException("etcd exited with " + process.exitValue() + ":\n" + logTail());
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("etcd did not become healthy within " + START_TIMEOUT + ":\n" + logTail());
            }
            pause(HEALTH_POLL_INTERVAL);
        }
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for etcd to become healthy", e);
        }
    }

    private boolean isHealthy() {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + clientPort + "/health"))
                .timeout(Duration.ofSeconds(2))
                .build();
        try {
            HttpResponse<String> response = httpClient.send(request, HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 && response.body().replace(" ", "").contains("\"health\":\"true\"");
        }
        catch (IOException e) {
            return false;
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private Path logFile() {
        return directory.resolve("etcd.log");
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(logFile());
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        }
        catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private static void awaitExit(Process process) {
        try {
            if (!process.waitFor(30, SECONDS)) {
                throw new IllegalStateException("etcd (pid " + process.pid() + ") did not exit after SIGKILL");
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for etcd to exit", e);
        }
    }

    /**
     * {@code /dev/shm} where it is a writable directory with room for a few etcds (each preallocates a 64 MB log
     * segment), else the default temporary directory. etcd syncs its log on every commit, and on a CI machine with
     * slow syncs its tests timed out. The tests kill processes, not the machine, and what a killed process wrote stays
     * in the page cache either way, so a memory-backed directory checks the same durability.
     */
    private static Path memoryBackedTemporaryDirectory() {
        Path shm = Path.of("/dev/shm");
        try {
            if (Files.isDirectory(shm) && Files.isWritable(shm) && Files.getFileStore(shm).getUsableSpace() >= MIN_MEMORY_BACKED_BYTES) {
                return shm;
            }
        }
        catch (IOException e) {
            // Not usable: fall back to the default.
        }
        return Path.of(System.getProperty("java.io.tmpdir"));
    }

    /** A loopback port nothing listens on at the moment. */
    static int freeLoopbackPort() {
        // The port is free now; etcd binds it a moment later. Another process could take it in between, which then
        // shows up as a clear start failure rather than a silent misbehaviour.
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + root, e);
        }
    }
}
