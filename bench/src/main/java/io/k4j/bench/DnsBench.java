package io.k4j.bench;

import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.k4j.dns.records.ClusterAnswers;
import io.k4j.dns.records.RecordIndex;
import io.k4j.dns.server.DnsServer;
import io.k4j.dns.server.QueryHandler;
import io.k4j.dns.server.UpstreamForwarder;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;

/**
 * Issue 5's DNS benchmark ({@code ./k4j bench --suite dns}): the cluster DNS server on loopback, answering from an index
 * of 1,000 ClusterIP and 100 headless services (10 endpoints each). Queries mix a ClusterIP A, a headless A, an SRV and
 * an NXDOMAIN (the first search-path name a pod's resolver with ndots:5 tries). The load comes from {@code dnsperf}
 * (Debian package dnsperf), a C generator in its own process, as CoreDNS's published numbers were measured; without it,
 * from closed-loop Java clients in this JVM, which cost as much CPU as the server they measure (the output says so).
 *
 * <p>The server runs in this JVM: once the index is built this process does nothing else while dnsperf runs, so its
 * CPU time over the measured run is the server's own; the generator's CPU is measured apart (bash's {@code times}).
 */
final class DnsBench {
    private static final int SERVICES = 1_000;
    private static final int HEADLESS = 100;
    private static final int ENDPOINTS = 10;
    /** dnsperf's UDP sockets (source ports). */
    private static final int DNSPERF_CLIENTS = 8;
    /** Queries dnsperf keeps in flight (its default). */
    private static final int DNSPERF_OUTSTANDING = 100;
    /** A query without an answer after this long counts as lost; the Java generator used the same timeout. */
    private static final int TIMEOUT_SECONDS = 1;

    private DnsBench() {}

    /**
     * Loads the server with dnsperf when {@code dnsperf} is present, otherwise with {@code javaClients} closed-loop Java
     * clients, and returns the markdown table of the measured run.
     */
    static String run(Optional<Path> dnsperf, int javaClients, Duration warmUp, Duration measured, Path work) throws Exception {
        QueryHandler handler = new QueryHandler(new ClusterAnswers(index(), "cluster.local", Duration.ofSeconds(5), Optional.empty()),
                new UpstreamForwarder(List.of(), Duration.ofSeconds(1)));
        try (DnsServer server = new DnsServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), handler::reply, DnsServer.Limits.defaults())) {
            server.start();
            if (dnsperf.isPresent()) {
                return withDnsperf(dnsperf.get(), server, warmUp, measured, work);
            }
            return withJavaClients(server, javaClients, warmUp, measured);
        }
    }

    static RecordIndex index() {
        RecordIndex index = new RecordIndex(InstantSource.system());
        for (int i = 0; i < SERVICES; i++) {
            String ip = "10.96." + (1 + i / 250) + "." + (1 + i % 250);
            index.putService(new ServiceBuilder().withNewMetadata().withNamespace("ns" + i % 10).withName("svc" + i).endMetadata()
                    .withNewSpec().withType("ClusterIP").withClusterIP(ip).withClusterIPs(ip)
                    .addNewPort().withName("http").withProtocol("TCP").withPort(80).endPort().endSpec().build());
        }
        for (int i = 0; i < HEADLESS; i++) {
            index.putService(new ServiceBuilder().withNewMetadata().withNamespace("ns" + i % 10).withName("headless" + i).endMetadata()
                    .withNewSpec().withType("ClusterIP").withClusterIP("None").addNewPort().withName("http").withProtocol("TCP").withPort(80).endPort()
                    .endSpec().build());
            List<io.fabric8.kubernetes.api.model.discovery.v1.Endpoint> endpoints = new ArrayList<>();
            for (int e = 0; e < ENDPOINTS; e++) {
                endpoints.add(new EndpointBuilder().withAddresses("10.42." + i + "." + (e + 1)).withNewConditions().withReady(true).endConditions().build());
            }
            index.putEndpointSlice(new EndpointSliceBuilder().withNewMetadata().withNamespace("ns" + i % 10).withName("headless" + i + "-x")
                    .withLabels(Map.of(RecordIndex.SERVICE_NAME_LABEL, "headless" + i)).endMetadata().withAddressType("IPv4")
                    .addNewPort().withName("http").withProtocol("TCP").withPort(80).endPort().withEndpoints(endpoints).build());
        }
        return index;
    }

    /** The query mix, as {@code name type} pairs: 512 rounds of ClusterIP A, headless A, SRV and a search-path NXDOMAIN. */
    static List<String[]> queries() {
        List<String[]> queries = new ArrayList<>();
        for (int i = 0; i < 512; i++) {
            int service = (i * 7) % SERVICES;
            int headless = i % HEADLESS;
            String serviceName = "svc" + service + ".ns" + service % 10 + ".svc.cluster.local";
            queries.add(new String[] {serviceName, "A"});
            queries.add(new String[] {"headless" + headless + ".ns" + headless % 10 + ".svc.cluster.local", "A"});
            queries.add(new String[] {"_http._tcp." + serviceName, "SRV"});
            // A pod in another namespace asking for svcN.nsM.svc.cluster.local (4 dots < ndots:5) tries its own search path first.
            queries.add(new String[] {serviceName + ".ns" + (service + 3) % 10 + ".svc.cluster.local", "A"});
        }
        return queries;
    }

    /** What one dnsperf run reported. */
    private record DnsperfRun(long sent, long completed, long lost, double perSecond, double averageSeconds, double minimumSeconds,
            double maximumSeconds, String responseCodes, Latencies latencies, Duration generatorCpu) {}

    private static String withDnsperf(Path dnsperf, DnsServer server, Duration warmUp, Duration measured, Path work) throws Exception {
        Path queryFile = work.resolve("dnsperf-queries.txt");
        Files.write(queryFile, queries().stream().map(query -> query[0] + " " + query[1]).toList());
        dnsperf(dnsperf, server.address(), queryFile, warmUp, work);
        com.sun.management.OperatingSystemMXBean system = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        String loadBefore = Commands.loadAverage();
        long serverCpuBefore = system.getProcessCpuTime();
        DnsperfRun run = dnsperf(dnsperf, server.address(), queryFile, measured, work);
        long serverCpu = system.getProcessCpuTime() - serverCpuBefore;
        String loadAfter = Commands.loadAverage();
        double seconds = measured.toNanos() / 1e9;
        String command = String.format(Locale.ROOT, "dnsperf -s 127.0.0.1 -p PORT -d QUERIES -c %d -q %d -t %d -l %d -v",
                DNSPERF_CLIENTS, DNSPERF_OUTSTANDING, TIMEOUT_SECONDS, measured.toSeconds());
        return String.format(Locale.ROOT, """

                | measure | k4j cluster DNS | reference |
                |---|---|---|
                | UDP queries/s (dnsperf 2.10, `%s`, after a %d s warm-up run) | %.0f | CoreDNS ≈33.7k internal QPS on 2 vCPU (published), target ≥ 30k |
                | latency p50 / p99 / p99.9 (dnsperf's per-query latencies) | %.2f ms / %.2f ms / %.2f ms | |
                | latency average (min / max) | %.2f ms (%.3f / %.1f ms) | CoreDNS 2.6 ms average |
                | queries sent / answered / lost (no answer within %d s) | %d / %d / %d | |
                | response codes | %s | 75%% NOERROR, 25%% NXDOMAIN expected |
                | server CPU per answered query (this JVM's CPU time over the run) | %.1f µs (%.2f cores) | |
                | dnsperf's own CPU (user + system) | %.1f s in %d s (%.2f cores) | |
                | forwarded queries dropped by the server (in-flight limit) | %d | |

                Index: %d ClusterIP services, %d headless services with %d endpoints each. The %d queries, in this order, rotate
                a ClusterIP A, a headless A (%d records), the SRV of the ClusterIP service's named port and the NXDOMAIN a pod in
                another namespace gets for the same name first (ndots:5 search path). The server runs in the bench JVM (nothing
                else runs there during the measured run) and dnsperf in its own process on the same 2 cores; load average %s
                before, %s after (anything else running on the machine shares the cores with both).
                """, command, warmUp.toSeconds(), run.perSecond(), run.latencies().percentileMillis(50), run.latencies().percentileMillis(99),
                run.latencies().percentileMillis(99.9), run.averageSeconds() * 1e3, run.minimumSeconds() * 1e3, run.maximumSeconds() * 1e3,
                TIMEOUT_SECONDS, run.sent(), run.completed(), run.lost(), run.responseCodes(),
                run.completed() == 0 ? Double.NaN : serverCpu / 1e3 / run.completed(), serverCpu / 1e9 / seconds,
                run.generatorCpu().toNanos() / 1e9, measured.toSeconds(), run.generatorCpu().toNanos() / 1e9 / seconds,
                server.droppedUdpQueries(), SERVICES, HEADLESS, ENDPOINTS, queries().size(), ENDPOINTS, loadBefore, loadAfter);
    }

    /** Runs dnsperf for {@code duration} with per-query output (-v) into a file, and reads its summary and latencies. */
    private static DnsperfRun dnsperf(Path dnsperf, InetSocketAddress server, Path queryFile, Duration duration, Path work)
            throws IOException, InterruptedException {
        Path output = work.resolve("dnsperf-output.txt");
        List<String> command = Commands.withChildCpu(List.of(dnsperf.toString(),
                "-s", server.getAddress().getHostAddress(), "-p", Integer.toString(server.getPort()), "-d", queryFile.toString(),
                "-c", Integer.toString(DNSPERF_CLIENTS), "-q", Integer.toString(DNSPERF_OUTSTANDING), "-t", Integer.toString(TIMEOUT_SECONDS),
                "-l", Long.toString(Math.max(1, duration.toSeconds())), "-v"));
        Process process = new ProcessBuilder(command).redirectOutput(output.toFile()).start();
        String errors = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(duration.toSeconds() + 60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException("dnsperf did not finish within " + (duration.toSeconds() + 60) + " s");
        }
        if (process.exitValue() != 0) {
            throw new IOException("dnsperf failed (exit " + process.exitValue() + "): " + errors.strip());
        }
        Latencies latencies = new Latencies();
        Map<String, String> summary = new HashMap<>();
        try (Stream<String> lines = Files.lines(output)) {
            lines.forEach(line -> {
                if (line.startsWith("> ")) {
                    // "> RCODE name type seconds"; a lost query ("> T name type") carries no latency.
                    String[] fields = line.split(" ");
                    if (fields.length == 5 && !fields[1].equals("T")) {
                        latencies.record((long) (Double.parseDouble(fields[4]) * 1e9));
                    }
                } else {
                    int colon = line.indexOf(':');
                    if (colon > 0) {
                        summary.put(line.substring(0, colon).strip(), line.substring(colon + 1).strip());
                    }
                }
            });
        }
        Matcher latency = Pattern.compile("([\\d.]+) \\(min ([\\d.]+), max ([\\d.]+)\\)").matcher(field(summary, "Average Latency (s)"));
        if (!latency.matches()) {
            throw new IOException("unexpected dnsperf latency line: " + summary.get("Average Latency (s)"));
        }
        return new DnsperfRun(firstNumber(field(summary, "Queries sent")), firstNumber(field(summary, "Queries completed")),
                firstNumber(field(summary, "Queries lost")), Double.parseDouble(field(summary, "Queries per second")),
                Double.parseDouble(latency.group(1)), Double.parseDouble(latency.group(2)), Double.parseDouble(latency.group(3)),
                summary.getOrDefault("Response codes", "none"), latencies, Commands.childCpu(errors));
    }

    private static String field(Map<String, String> summary, String name) throws IOException {
        String value = summary.get(name);
        if (value == null) {
            throw new IOException("dnsperf printed no \"" + name + "\" line");
        }
        return value;
    }

    private static long firstNumber(String value) {
        return Long.parseLong(value.split(" ")[0]);
    }

    private static String withJavaClients(DnsServer server, int concurrency, Duration warmUp, Duration measured) throws Exception {
        load(server.address(), concurrency, warmUp);
        String loadBefore = Commands.loadAverage();
        Result result = load(server.address(), concurrency, measured);
        String loadAfter = Commands.loadAverage();
        return String.format(Locale.ROOT, """

                Without dnsperf (not installed, or `--generator jdk`) the load comes from closed-loop Java clients in the server's
                own JVM, which cost about as much CPU as the server they measure, so this rate is a floor.

                | measure | k4j cluster DNS | reference |
                |---|---|---|
                | UDP queries/s (%d closed-loop Java clients, %d s) | %.0f | CoreDNS ≈33.7k internal QPS on 2 vCPU (published), target ≥ 30k |
                | latency p50 / p99 | %.2f ms / %.2f ms | CoreDNS 2.6 ms average |
                | timeouts (%d s) / forwarded queries dropped by the server | %d / %d | |

                Index: %d ClusterIP services, %d headless services with %d endpoints each; queries rotate ClusterIP A, headless A
                (%d records), SRV, search-path NXDOMAIN. Load average %s before, %s after (2 cores shared with other work; the
                load generator runs on the same cores).
                """, concurrency, measured.toSeconds(), result.completed / (measured.toNanos() / 1e9), result.latencies.percentileMillis(50),
                result.latencies.percentileMillis(99), TIMEOUT_SECONDS, result.timeouts, server.droppedUdpQueries(), SERVICES, HEADLESS, ENDPOINTS,
                ENDPOINTS, loadBefore, loadAfter);
    }

    private record Result(long completed, long timeouts, Latencies latencies) {}

    private static Result load(InetSocketAddress server, int concurrency, Duration duration) throws Exception {
        long deadline = System.nanoTime() + duration.toNanos();
        List<Future<Result>> clients = new ArrayList<>();
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int c = 0; c < concurrency; c++) {
                int client = c;
                clients.add(executor.submit(() -> client(server, client, deadline)));
            }
        }
        long completed = 0;
        long timeouts = 0;
        Latencies latencies = new Latencies();
        for (Future<Result> client : clients) {
            Result result = client.get();
            completed += result.completed;
            timeouts += result.timeouts;
            latencies.addAll(result.latencies);
        }
        return new Result(completed, timeouts, latencies);
    }

    private static Result client(InetSocketAddress server, int client, long deadline) throws IOException {
        List<byte[]> queries = new ArrayList<>();
        for (String[] query : queries()) {
            queries.add(wire(query[0] + ".", Type.value(query[1])));
        }
        // Each client starts at another place in the mix, so the clients do not ask in lock step.
        int next = client * 4 * 16;
        long completed = 0;
        long timeouts = 0;
        Latencies latencies = new Latencies();
        byte[] buffer = new byte[4096];
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            socket.connect(server);
            socket.setSoTimeout((int) TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
            while (System.nanoTime() < deadline) {
                byte[] query = queries.get(next++ % queries.size());
                long started = System.nanoTime();
                socket.send(new DatagramPacket(query, query.length));
                try {
                    // A late answer to a query that timed out is not this query's answer.
                    do {
                        socket.receive(new DatagramPacket(buffer, buffer.length));
                    } while (buffer[0] != query[0] || buffer[1] != query[1]);
                    latencies.record(System.nanoTime() - started);
                    completed++;
                } catch (SocketTimeoutException e) {
                    timeouts++;
                }
            }
        }
        return new Result(completed, timeouts, latencies);
    }

    private static byte[] wire(String name, int type) {
        try {
            return Message.newQuery(Record.newRecord(Name.fromString(name), type, DClass.IN)).toWire();
        } catch (org.xbill.DNS.TextParseException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
