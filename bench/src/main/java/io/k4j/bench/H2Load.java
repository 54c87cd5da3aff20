package io.k4j.bench;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A load generator that costs the server's machine little: nghttp2's {@code h2load} (Debian package
 * {@code nghttp2-client}), a C HTTP/2 client that sends one pre-built body over multiplexed TLS connections.
 * Each run reports the requests per second, latency percentiles from h2load's per-request log, and the CPU the
 * generator itself used. Authenticates with a bearer token (h2load has no client certificates). Thread-safe
 * (stateless apart from its settings).
 */
final class H2Load {

    private final Path executable;
    private final URI server;
    private final String token;
    private final Path work;

    private H2Load(Path executable, URI server, String token, Path work) {
        this.executable = requireNonNull(executable, "executable is null");
        this.server = requireNonNull(server, "server is null");
        this.token = requireNonNull(token, "token is null");
        this.work = requireNonNull(work, "work is null");
    }

    /**
     * Writes a static token file making {@code token} a cluster admin, for {@code --token-auth-file}: h2load has no
     * client certificates, so it authenticates with that token.
     */
    static Path adminTokenFile(Path file, String token) throws IOException {
        Files.createDirectories(file.getParent());
        return Files.writeString(file, token + ",bench-admin,bench-admin,\"system:masters\"\n");
    }

    static H2Load create(Path executable, URI server, String token, Path work) {
        return new H2Load(executable, server, token, work);
    }

    /** Outcome of one run. */
    record Run(int requests, int succeeded, double perSecond, Latencies latencies, Duration generatorCpu) {
        Run {
            requireNonNull(latencies, "latencies is null");
            requireNonNull(generatorCpu, "generatorCpu is null");
        }
    }

    /**
     * POSTs {@code body} to {@code path} {@code requests} times over {@code connections} connections with up to
     * {@code streams} requests in flight on each.
     */
    Run post(String path, String body, int requests, int connections, int streams) {
        try {
            Path bodyFile = Files.writeString(work.resolve("h2load-body.json"), body);
            return run(path, List.of("-H", "Content-Type: application/json", "-d", bodyFile.toString()), requests, connections, streams);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * GETs {@code path} {@code requests} times, one after the other over one connection; each latency runs from the
     * request to the last byte of its response, which h2load reads and drops.
     */
    Run get(String path, int requests) {
        return run(path, List.of(), requests, 1, 1);
    }

    private Run run(String path, List<String> requestArguments, int requests, int connections, int streams) {
        try {
            Path log = work.resolve("h2load-requests.log");
            Files.deleteIfExists(log);
            List<String> arguments = new ArrayList<>(List.of(executable.toString(),
                    "-n", Integer.toString(requests), "-c", Integer.toString(connections), "-m", Integer.toString(streams),
                    "-H", "Authorization: Bearer " + token, "-H", "Accept: application/json"));
            arguments.addAll(requestArguments);
            arguments.add("--log-file=" + log);
            arguments.add(server.resolve(path).toString());
            List<String> command = Commands.withChildCpu(arguments);
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int exit = process.waitFor();
            if (exit != 0) {
                throw new IllegalStateException("h2load failed with " + exit + ":\n" + output);
            }
            Latencies latencies = new Latencies();
            int succeeded = 0;
            try (Stream<String> lines = Files.lines(log)) {
                for (String line : (Iterable<String>) lines::iterator) {
                    String[] columns = line.split("\t");
                    if (columns.length >= 3) {
                        latencies.record(Long.parseLong(columns[2].trim()) * 1_000);
                        if (columns[1].trim().startsWith("2")) {
                            succeeded++;
                        }
                    }
                }
            }
            return new Run(requests, succeeded, perSecond(output), latencies, Commands.childCpu(output));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static double perSecond(String output) {
        Matcher matcher = Pattern.compile("finished in [^,]+, ([\\d.]+) req/s").matcher(output);
        if (!matcher.find()) {
            throw new IllegalStateException("unexpected h2load output:\n" + output);
        }
        return Double.parseDouble(matcher.group(1));
    }

}
