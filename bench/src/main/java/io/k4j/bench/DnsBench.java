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
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;

/**
 * Issue 5's DNS benchmark ({@code ./k4j bench --suite dns}): the cluster DNS server on loopback, answering from an index
 * of 1,000 ClusterIP and 100 headless services (10 endpoints each), under a closed-loop UDP load of {@code concurrency}
 * clients that each wait for their answer before the next query (so the load is bounded). Queries mix a ClusterIP A, a
 * headless A, an SRV and an NXDOMAIN, as a pod's resolver with ndots:5 produces. The load generator shares the machine
 * with the server, so the rate is a floor, not the server's capacity; the load average is recorded beside it.
 */
final class DnsBench {
    private static final int SERVICES = 1_000;
    private static final int HEADLESS = 100;
    private static final int ENDPOINTS = 10;

    private DnsBench() {}

    static String run(int concurrency, Duration warmUp, Duration measured) throws Exception {
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
        QueryHandler handler = new QueryHandler(new ClusterAnswers(index, "cluster.local", Duration.ofSeconds(5), Optional.empty()),
                new UpstreamForwarder(List.of(), Duration.ofSeconds(1)));
        try (DnsServer server = new DnsServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), handler::handle, DnsServer.Limits.defaults())) {
            server.start();
            load(server.address(), concurrency, warmUp);
            double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
            Result result = load(server.address(), concurrency, measured);
            double loadAfter = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
            return String.format(Locale.ROOT, """

                    | measure | k4j cluster DNS | reference |
                    |---|---|---|
                    | UDP queries/s (%d closed-loop clients, %d s) | %.0f | CoreDNS ≈33.7k internal QPS on 2 vCPU (published), target ≥ 30k |
                    | latency p50 / p99 | %.2f ms / %.2f ms | CoreDNS 2.6 ms average |
                    | timeouts (1 s) / dropped by the server | %d / %d | |

                    Index: %d ClusterIP services, %d headless services with %d endpoints each; queries rotate ClusterIP A, headless A
                    (10 records), SRV, NXDOMAIN. Load average %.1f before, %.1f after (2 cores shared with other work; the load
                    generator runs on the same cores).
                    """, concurrency, measured.toSeconds(), result.completed / (measured.toNanos() / 1e9), result.latencies.percentileMillis(50),
                    result.latencies.percentileMillis(99), result.timeouts, server.droppedUdpQueries(), SERVICES, HEADLESS, ENDPOINTS, loadBefore, loadAfter);
        }
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
        for (int i = 0; i < 16; i++) {
            int service = (client * 16 + i) % SERVICES;
            int headless = (client * 16 + i) % HEADLESS;
            queries.add(wire("svc" + service + ".ns" + service % 10 + ".svc.cluster.local.", Type.A));
            queries.add(wire("headless" + headless + ".ns" + headless % 10 + ".svc.cluster.local.", Type.A));
            queries.add(wire("_http._tcp.svc" + service + ".ns" + service % 10 + ".svc.cluster.local.", Type.SRV));
            queries.add(wire("missing" + i + ".ns" + service % 10 + ".svc.cluster.local.", Type.A));
        }
        long completed = 0;
        long timeouts = 0;
        Latencies latencies = new Latencies();
        byte[] buffer = new byte[4096];
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            socket.connect(server);
            socket.setSoTimeout(1000);
            int next = 0;
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
