package io.k4j.launcher.images;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A Debian {@code docker-registry} (distribution 2.8) that k4j runs on loopback as a child process: its
 * configuration, storage, log and pid file under one directory (for {@code k4j server}: {@code <data-dir>/registry}).
 * It listens on the preferred port (5000 by default) unless something else holds it, then on a free port. A registry
 * left running by an earlier k4j process that was killed is stopped first. With an htpasswd file it requires basic
 * authentication (bcrypt entries, see {@link Htpasswd}) — the registry behind {@code imagePullSecrets} tests.
 *
 * <p>Thread-safe; {@link #close} stops the process.
 */
public final class LocalRegistry implements AutoCloseable {
    public static final int DEFAULT_PORT = 5000;
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final Process process;
    private final URI endpoint;
    private final Path directory;

    private LocalRegistry(Process process, URI endpoint, Path directory) {
        this.process = process;
        this.endpoint = endpoint;
        this.directory = directory;
    }

    /**
     * Starts a registry keeping its state in {@code directory}, on {@code host} (a loopback address) and
     * {@code preferredPort} (0 for any free port), with basic authentication when {@code htpasswd} is given.
     */
    public static LocalRegistry start(Path directory, String host, int preferredPort, Optional<Path> htpasswd, Progress progress)
            throws IOException {
        requireNonNull(directory, "directory is null");
        requireNonNull(htpasswd, "htpasswd is null");
        Path binary = HostCommands.find("docker-registry").orElseThrow(() -> new IOException(
                "docker-registry is not installed: k4j's local image registry needs the Debian package docker-registry (as root: apt-get install docker-registry)"));
        directory = directory.toAbsolutePath();
        Files.createDirectories(directory.resolve("storage"));
        Path configFile = directory.resolve("config.yml");
        Path pidFile = directory.resolve("registry.pid");
        stopLeftover(pidFile, configFile, progress);
        int port = choosePort(host, preferredPort, progress);
        String address = (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        Files.writeString(configFile, configuration(directory.resolve("storage"), address, htpasswd), StandardCharsets.UTF_8);
        Path log = directory.resolve("registry.log");
        Process process = new ProcessBuilder(List.of(binary.toString(), "serve", configFile.toString()))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        process.getOutputStream().close();
        Files.writeString(pidFile, Long.toString(process.pid()), StandardCharsets.UTF_8);
        URI endpoint = URI.create("http://" + address);
        LocalRegistry registry = new LocalRegistry(process, endpoint, directory);
        try {
            registry.awaitReady(log);
        } catch (IOException | RuntimeException e) {
            registry.close();
            throw e;
        }
        progress.report("registry: docker-registry listens on " + endpoint + (htpasswd.isPresent() ? " (basic authentication)" : "")
                + ", storage in " + directory.resolve("storage"));
        return registry;
    }

    /** The registry's base URI, e.g. {@code http://127.0.0.1:5000}. */
    public URI endpoint() {
        return endpoint;
    }

    /** {@code host:port} as image references name it, e.g. {@code 127.0.0.1:5000}. */
    public String hostAndPort() {
        return endpoint.getAuthority();
    }

    public Path directory() {
        return directory;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try {
            Files.deleteIfExists(directory.resolve("registry.pid"));
        } catch (IOException e) {
            // a stale pid file is checked against the process's command line on the next start
        }
    }

    private void awaitReady(Path log) throws IOException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        Instant deadline = Instant.now().plus(START_TIMEOUT);
        IOException last = null;
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IOException("docker-registry exited with status " + process.exitValue() + " while starting: " + tail(log));
            }
            try {
                HttpResponse<Void> response = http.send(HttpRequest.newBuilder(endpoint.resolve("/v2/")).timeout(Duration.ofSeconds(2)).build(),
                        HttpResponse.BodyHandlers.discarding());
                if (response.statusCode() == 200 || response.statusCode() == 401) {
                    return;
                }
            } catch (IOException e) {
                last = e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for docker-registry", e);
            }
            try {
                process.waitFor(100, TimeUnit.MILLISECONDS); // returns early if it dies
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for docker-registry", e);
            }
        }
        throw new IOException("docker-registry did not answer on " + endpoint + " within " + START_TIMEOUT.toSeconds() + " s"
                + (last != null ? " (" + last.getMessage() + ")" : "") + ": " + tail(log));
    }

    private static String configuration(Path storage, String address, Optional<Path> htpasswd) {
        StringBuilder yaml = new StringBuilder("""
                # Written by k4j at each start.
                version: 0.1
                log:
                  level: warn
                  accesslog:
                    disabled: true
                storage:
                  filesystem:
                    rootdirectory: %s
                  delete:
                    enabled: true
                  maintenance:
                    uploadpurging:
                      enabled: false
                http:
                  addr: %s
                  headers:
                    X-Content-Type-Options: [nosniff]
                """.formatted(quote(storage.toString()), quote(address)));
        htpasswd.ifPresent(file -> yaml.append("""
                auth:
                  htpasswd:
                    realm: k4j-registry
                    path: %s
                """.formatted(quote(file.toAbsolutePath().toString()))));
        return yaml.toString();
    }

    private static String quote(String value) {
        return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** Stops a registry an earlier, killed k4j process left running on this directory (its command line names our config). */
    private static void stopLeftover(Path pidFile, Path configFile, Progress progress) throws IOException {
        if (!Files.isRegularFile(pidFile)) {
            return;
        }
        long pid;
        try {
            pid = Long.parseLong(Files.readString(pidFile).strip());
        } catch (NumberFormatException e) {
            Files.delete(pidFile);
            return;
        }
        Optional<ProcessHandle> leftover = ProcessHandle.of(pid)
                .filter(handle -> handle.info().arguments().map(List::of).orElse(List.of()).contains(configFile.toString()));
        if (leftover.isPresent()) {
            progress.report("registry: stopping the docker-registry (pid " + pid + ") an earlier k4j process left running");
            leftover.get().destroy();
            try {
                leftover.get().onExit().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                leftover.get().destroyForcibly();
            }
        }
        Files.deleteIfExists(pidFile);
    }

    private static int choosePort(String host, int preferredPort, Progress progress) throws IOException {
        InetAddress address = InetAddress.getByName(host);
        if (!address.isLoopbackAddress()) {
            throw new IOException("the local registry listens on loopback only, not on " + host);
        }
        if (preferredPort > 0) {
            try (ServerSocket probe = new ServerSocket()) {
                probe.setReuseAddress(true);
                probe.bind(new InetSocketAddress(address, preferredPort));
                return preferredPort;
            } catch (IOException e) {
                progress.report("registry: " + host + ":" + preferredPort + " is taken; using a free port instead");
            }
        }
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress(address, 0));
            return probe.getLocalPort();
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 10), lines.size()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
