package io.k4j.bench;

import static io.k4j.bench.Commands.log;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.e2e.K4jServer;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Issue 5's kube-proxy benchmark ({@code ./k4j bench --suite proxy}): network programming latency as upstream defines it
 * ({@code kubeproxy_network_programming_duration_seconds}: from an endpoints change's trigger time to the end of the
 * sync that put its rules in place) with {@code services} selector-less Services of {@code endpointsPerService}
 * hand-written endpoints each. {@code k4j server} runs kube-proxy in a network namespace the bench creates (the hidden
 * {@code --kube-proxy-network-namespace}), never on the host's tables, at {@code -v 2} so that the proxier logs each
 * sync's result and latencies; the bench reads them from the server's log rather than polling iptables-save, which
 * would cost more than the syncs it measures. A change replaces one endpoint of one slice (a pod replaced) and stamps
 * the slice's {@code endpoints.kubernetes.io/last-change-trigger-time} with the time of the write. Two loads: isolated
 * changes (each once the previous is in place and kube-proxy's minimum sync period, and at least 1 s, has passed: the pipeline's own
 * latency) and churn (changes arriving at random at a given rate, which the minimum sync period batches, as upstream).
 * The bench passes the minimum sync period ({@code --iptables-min-sync-period}) to the server and states it.
 * Beside them: one full {@code iptables-restore} of all the namespace's rules at that size. Not thread-safe.
 */
final class ProxyBench {
    private static final String NAMESPACE = "proxy-bench";
    private static final String TRIGGER_TIME = "endpoints.kubernetes.io/last-change-trigger-time";
    private static final Pattern LATENCY = Pattern.compile("network programming latency: service=(\\S+) latency=([0-9.]+)ms");
    private static final Pattern SYNC = Pattern.compile("SyncProxyRules complete: full=(\\w+) servicePorts=(\\d+) elapsed=([0-9.]+)ms restore=([0-9.]+)ms");
    private static final Duration CHANGE_TIMEOUT = Duration.ofSeconds(60);
    /** k4j's default {@code --iptables-min-sync-period}; the bench always passes the period it runs with. */
    static final int DEFAULT_MIN_SYNC_PERIOD_MILLIS = 250;

    private final ObjectMapper json = new ObjectMapper();
    private final Random random = new Random(42);
    private final int services;
    private final int endpointsPerService;
    private final int minSyncPeriodMillis;
    private final Map<Integer, Integer> versions = new HashMap<>();
    private final Map<String, List<Double>> observed = new HashMap<>();
    private final Latencies syncElapsed = new Latencies();
    private final Latencies syncRestore = new Latencies();
    private int largestServicePorts;
    private LogTail log;
    private ClusterClient client;

    private ProxyBench(int services, int endpointsPerService, int minSyncPeriodMillis) {
        this.services = services;
        this.endpointsPerService = endpointsPerService;
        this.minSyncPeriodMillis = minSyncPeriodMillis;
    }

    /** Runs the benchmark in {@code directory} and returns its section of the benchmarks document. */
    static String run(Path directory, int services, int endpointsPerService, int isolatedChanges, int churnChanges, double churnRate,
            int minSyncPeriodMillis) throws Exception {
        if (!"root".equals(System.getProperty("user.name"))) {
            throw new IllegalStateException("the proxy suite needs root: kube-proxy writes iptables rules in a network namespace");
        }
        String networkNamespace = "k4jbench-" + UUID.randomUUID().toString().substring(0, 8);
        Commands.run(List.of("ip", "netns", "add", networkNamespace), null);
        try {
            return new ProxyBench(services, endpointsPerService, minSyncPeriodMillis).measure(directory, networkNamespace, isolatedChanges,
                    Math.min(churnChanges, services), churnRate);
        } finally {
            Commands.run(List.of("ip", "netns", "delete", networkNamespace), null);
        }
    }

    private String measure(Path directory, String networkNamespace, int isolatedChanges, int churnChanges, double churnRate) throws Exception {
        log("proxy: starting k4j server with kube-proxy in network namespace " + networkNamespace);
        try (K4jServer server = K4jServer.start(directory.resolve("server"), "--kube-proxy-network-namespace", networkNamespace,
                "--iptables-min-sync-period", minSyncPeriodMillis + "ms", "-v", "2")) {
            log = LogTail.fromEnd(server.dataDirectory().resolve("server.log"));
            client = ClusterClient.fromKubeconfig(server.kubeconfig()).connected(Duration.ofMinutes(2));
            client.require("POST", "/api/v1/namespaces", "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" + NAMESPACE + "\"}}");
            createObjects(server);
            log("proxy: waiting until kube-proxy programmed all " + services + " services");
            long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
            while (largestServicePorts < services) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("kube-proxy programmed only " + largestServicePorts + " service ports within 5 minutes");
                }
                pollLog();
                Thread.sleep(20);
            }
            // A change after all creates: once it is in place, so is everything written before it.
            change(0);
            awaitObserved(List.of(service(0)));
            syncElapsed.clear();
            syncRestore.clear();

            String loadBefore = Commands.loadAverage();
            log("proxy: " + isolatedChanges + " isolated endpoint changes");
            Latencies isolated = new Latencies();
            for (int i = 0; i < isolatedChanges; i++) {
                int index = random.nextInt(services);
                // The proxier's minimum sync period has passed since the previous sync (and at least 1 s, upstream's default).
                Thread.sleep(Math.max(1_000, minSyncPeriodMillis) + random.nextInt(500));
                change(index);
                isolated.record(millisToNanos(awaitObserved(List.of(service(index))).get(0)));
                if ((i + 1) % 10 == 0) {
                    log(String.format(Locale.ROOT, "proxy: %d/%d isolated changes, p50 so far %.1f ms", i + 1, isolatedChanges, isolated.percentileMillis(50)));
                }
            }
            Latencies isolatedSync = syncElapsed.copy();
            Latencies isolatedRestore = syncRestore.copy();

            log(String.format(Locale.ROOT, "proxy: %d changes at %.1f/s (churn)", churnChanges, churnRate));
            Latencies churn = new Latencies();
            int first = random.nextInt(services);
            List<String> churned = new ArrayList<>();
            long next = System.nanoTime();
            for (int i = 0; i < churnChanges; i++) {
                next += (long) (-Math.log(1 - random.nextDouble()) / churnRate * 1e9);
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(Duration.ofNanos(wait));
                }
                int index = (first + i) % services;
                change(index);
                churned.add(service(index));
                pollLog();
                if ((i + 1) % 50 == 0) {
                    log("proxy: " + (i + 1) + "/" + churnChanges + " churn changes written");
                }
            }
            awaitObserved(churned).forEach(latency -> churn.record(millisToNanos(latency)));
            String loadAfter = Commands.loadAverage();

            log("proxy: timing a full iptables-restore of every rule in the namespace");
            FullRestore full = fullRestore(networkNamespace);
            return String.format(Locale.ROOT, """

                    Setup: %d selector-less Services (ClusterIP, one TCP port) with one hand-written EndpointSlice of %d ready endpoints each
                    (%d endpoints); kube-proxy (iptables mode, `--iptables-min-sync-period %dms`) programs a network namespace of the bench's own.
                    Latency as upstream's `kubeproxy_network_programming_duration_seconds`: from the slice's
                    `endpoints.kubernetes.io/last-change-trigger-time` (stamped at the write) to the end of the iptables-restore that
                    applied it, as the proxier reports it (`-v 2` log line). A change replaces one endpoint of one slice.

                    | load | changes | p50 ms | p99 ms | max ms | target |
                    |---|---|---|---|---|---|
                    | isolated (one at a time, ≥ max(1 s, min sync period) after the previous sync) | %d | %.1f | %.1f | %.1f | p99 ≤ 1000 |
                    | churn (random arrivals, %.1f changes/s, batched by the %d ms min sync period) | %d | %.1f | %.1f | %.1f | p99 ≤ 1000 |

                    Partial syncs of the isolated changes (regenerate the changed service ports' rules, diff, write the changed chains): p50 %.1f ms, p99 %.1f ms,
                    of which iptables-restore p50 %.1f ms, p99 %.1f ms. Full `iptables-restore --noflush` of all %d rules (%d chains, nat
                    and filter, %d KiB) in the namespace: best %.0f ms, median %.0f ms of %d. Load average %s before, %s after.
                    """, services, endpointsPerService, services * endpointsPerService, minSyncPeriodMillis,
                    isolated.count(), isolated.percentileMillis(50), isolated.percentileMillis(99), isolated.percentileMillis(100),
                    churnRate, minSyncPeriodMillis, churn.count(), churn.percentileMillis(50), churn.percentileMillis(99), churn.percentileMillis(100),
                    isolatedSync.percentileMillis(50), isolatedSync.percentileMillis(99), isolatedRestore.percentileMillis(50),
                    isolatedRestore.percentileMillis(99), full.rules(), full.chains(), full.bytes() / 1024, full.times().percentileMillis(0),
                    full.times().percentileMillis(50), full.times().count(), loadBefore, loadAfter);
        } finally {
            if (log != null) {
                log.close();
            }
        }
    }

    private void createObjects(K4jServer server) throws Exception {
        List<ClusterClient> clients = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            clients.add(ClusterClient.fromKubeconfig(server.kubeconfig()).connected(Duration.ofMinutes(2)));
        }
        log("proxy: creating " + services + " services");
        createAll(clients, index -> "/api/v1/namespaces/" + NAMESPACE + "/services", this::serviceBody);
        log("proxy: creating " + services + " endpoint slices of " + endpointsPerService + " endpoints");
        createAll(clients, index -> "/apis/discovery.k8s.io/v1/namespaces/" + NAMESPACE + "/endpointslices", index -> sliceBody(index, 0));
    }

    private void createAll(List<ClusterClient> clients, IntFunction<String> path, IntFunction<String> body)
            throws Exception {
        int workers = 16;
        List<Future<?>> futures = new ArrayList<>();
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int worker = 0; worker < workers; worker++) {
                int first = worker;
                futures.add(executor.submit(() -> {
                    for (int index = first; index < services; index += workers) {
                        clients.get(index % clients.size()).require("POST", path.apply(index), body.apply(index));
                        if (index % 250 == 0 && index > 0) {
                            log("proxy:   " + index + "/" + services);
                        }
                    }
                    return null;
                }));
            }
        }
        for (Future<?> future : futures) {
            future.get();
        }
    }

    private String serviceBody(int index) {
        ObjectNode service = json.createObjectNode().put("apiVersion", "v1").put("kind", "Service");
        service.putObject("metadata").put("name", "svc-" + index);
        ObjectNode spec = service.putObject("spec").put("type", "ClusterIP");
        spec.putArray("ports").addObject().put("name", "http").put("protocol", "TCP").put("port", 80).put("targetPort", 8080);
        return service.toString();
    }

    private String sliceBody(int index, int version) {
        ObjectNode slice = json.createObjectNode().put("apiVersion", "discovery.k8s.io/v1").put("kind", "EndpointSlice")
                .put("addressType", "IPv4");
        ObjectNode metadata = slice.putObject("metadata").put("name", "svc-" + index + "-bench");
        metadata.putObject("labels").put("kubernetes.io/service-name", "svc-" + index)
                .put("endpointslice.kubernetes.io/managed-by", "bench.k4j.io");
        slice.putArray("ports").addObject().put("name", "http").put("protocol", "TCP").put("port", 8080);
        slice.set("endpoints", endpoints(index, version));
        return slice.toString();
    }

    /** The endpoints of a service at a version: version v replaces endpoint v % n with an address of its own. */
    private ArrayNode endpoints(int index, int version) {
        ArrayNode endpoints = json.createArrayNode();
        for (int e = 0; e < endpointsPerService; e++) {
            int host = version > 0 && e == version % endpointsPerService ? 100 + version % 150 : e + 1;
            ObjectNode endpoint = endpoints.addObject();
            endpoint.putArray("addresses").add("10." + (100 + index / 250) + "." + index % 250 + "." + host);
            endpoint.putObject("conditions").put("ready", true).put("serving", true).put("terminating", false);
        }
        return endpoints;
    }

    /** Replaces one endpoint of the service's slice, stamping the write's time as the change's trigger time. */
    private void change(int index) {
        int version = versions.merge(index, 1, Integer::sum);
        ObjectNode patch = json.createObjectNode();
        patch.set("endpoints", endpoints(index, version));
        patch.putObject("metadata").putObject("annotations").put(TRIGGER_TIME, Instant.now().toString());
        HttpResponse<String> response = client.send("PATCH", "/apis/discovery.k8s.io/v1/namespaces/" + NAMESPACE + "/endpointslices/svc-" + index + "-bench",
                patch.toString(), "application/merge-patch+json");
        if (response.statusCode() != 200) {
            throw new IllegalStateException("patching slice svc-" + index + "-bench answered " + response.statusCode() + ": " + response.body());
        }
    }

    private static String service(int index) {
        return NAMESPACE + "/svc-" + index;
    }

    /** Waits until the proxier reported a latency for each of {@code services} (in order, one per entry). */
    private List<Double> awaitObserved(List<String> expected) throws InterruptedException {
        long deadline = System.nanoTime() + CHANGE_TIMEOUT.toNanos();
        List<Double> latencies = new ArrayList<>();
        for (String service : expected) {
            while (observed.getOrDefault(service, List.of()).isEmpty()) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("kube-proxy reported no programming latency for " + service + " within " + CHANGE_TIMEOUT);
                }
                pollLog();
                Thread.sleep(2);
            }
            latencies.add(observed.get(service).remove(0));
        }
        return latencies;
    }

    private void pollLog() {
        for (String line : log.poll()) {
            Matcher latency = LATENCY.matcher(line);
            if (latency.find()) {
                observed.computeIfAbsent(latency.group(1), key -> new ArrayList<>()).add(Double.parseDouble(latency.group(2)));
                continue;
            }
            Matcher sync = SYNC.matcher(line);
            if (sync.find()) {
                largestServicePorts = Math.max(largestServicePorts, Integer.parseInt(sync.group(2)));
                if (!Double.valueOf(sync.group(4)).equals(0.0)) {
                    syncElapsed.record(millisToNanos(Double.parseDouble(sync.group(3))));
                    syncRestore.record(millisToNanos(Double.parseDouble(sync.group(4))));
                }
            }
        }
    }

    private record FullRestore(int rules, int chains, int bytes, Latencies times) {}

    /** Times {@code iptables-restore --noflush} of everything {@code iptables-save} shows in the namespace. */
    private static FullRestore fullRestore(String networkNamespace) throws Exception {
        String rules = Commands.run(List.of("ip", "netns", "exec", networkNamespace, "iptables-save"), null);
        Latencies times = new Latencies();
        for (int i = 0; i < 5; i++) {
            long start = System.nanoTime();
            Commands.run(List.of("ip", "netns", "exec", networkNamespace, "iptables-restore", "-w", "--noflush"), rules);
            times.record(System.nanoTime() - start);
        }
        int count = (int) rules.lines().filter(line -> line.startsWith("-A ")).count();
        int chains = (int) rules.lines().filter(line -> line.startsWith(":")).count();
        return new FullRestore(count, chains, rules.length(), times);
    }

    private static long millisToNanos(double millis) {
        return (long) (millis * 1e6);
    }
}
