package io.k4j.bench;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.stream.Stream;

/**
 * Scheduler throughput and pod start-up measured end to end through the apiserver, as upstream's scheduler_perf
 * measures it: pods are created over the REST API, a watch sees when each gets its node and when the simulated
 * kubelet reports it Running. Not thread-safe: one run at a time.
 */
final class SchedulerBench {
    /** Pod {@code index} of a run is named {@code pod-<index>}; every pod manifest function must follow that. */
    static final String POD_NAME_PREFIX = "pod-";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** A run ends when no pod got bound for this long, so that a stuck scheduler cannot hang the benchmark. */
    private static final Duration STALL_LIMIT = Duration.ofSeconds(90);

    private final List<ClusterClient> clients;
    private final ApiServerBench apiServer;

    SchedulerBench(List<ClusterClient> clients) {
        this.clients = List.copyOf(requireNonNull(clients, "clients is null"));
        this.apiServer = new ApiServerBench(clients);
    }

    ClusterClient client() {
        return clients.get(0);
    }

    void createNamespace(String name) {
        apiServer.createNamespace(name);
    }

    /**
     * The outcome of one run.
     *
     * @param pods pods created
     * @param bound pods that got a node before the run ended
     * @param createsPerSecond creation rate over all creates
     * @param bindsPerSecond bindings per second from the first binding to the last
     * @param middleBindsPerSecond bindings per second between the 10th and the 90th percentile binding (steady state)
     * @param startup create ▶ Running latencies of the pods seen Running
     * @param scheduledEvents Scheduled events found in the namespace after the run
     * @param schedulingThroughput the per-second samples of scheduled pods as upstream's scheduler_perf takes them
     */
    record Throughput(int pods, int bound, double createsPerSecond, double bindsPerSecond, double middleBindsPerSecond, Latencies startup,
                      int scheduledEvents, SchedulingThroughput schedulingThroughput) {
        Throughput {
            requireNonNull(startup, "startup is null");
            requireNonNull(schedulingThroughput, "schedulingThroughput is null");
        }
    }

    /** Waits (bounded) until {@code count} nodes report Ready and returns how long that took from now. */
    Duration awaitReadyNodes(int count, Duration timeout) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        int ready = 0;
        while (System.nanoTime() < deadline) {
            try {
                ready = readyNodes();
            } catch (RuntimeException e) {
                // While thousands of nodes register the server may drop a connection; the next poll tries again.
                System.err.println("bench: listing nodes failed (" + e.getMessage() + "); retrying");
            }
            if (ready >= count) {
                return Duration.ofNanos(System.nanoTime() - start);
            }
            System.err.println("bench: " + ready + " of " + count + " nodes Ready");
            Thread.sleep(5_000); // polling a remote condition; the interval only sets how often the list is fetched
        }
        throw new IllegalStateException("only " + ready + " of " + count + " nodes became Ready within " + timeout);
    }

    private int readyNodes() {
        int ready = 0;
        String continueToken = "";
        do {
            JsonNode page = readJson(client().require("GET", "/api/v1/nodes?limit=1000" + (continueToken.isEmpty() ? "" : "&continue=" + encode(continueToken)), null));
            for (JsonNode node : page.path("items")) {
                for (JsonNode condition : node.path("status").path("conditions")) {
                    if (condition.path("type").asText().equals("Ready") && condition.path("status").asText().equals("True")) {
                        ready++;
                    }
                }
            }
            continueToken = page.path("metadata").path("continue").asText("");
        } while (!continueToken.isEmpty());
        return ready;
    }

    /**
     * Creates {@code pods} pods built by {@code podJson} in {@code namespace} with {@code concurrency} callers as fast as
     * the API takes them, or at {@code podsPerSecond} when that is positive, and waits until every pod is bound (and,
     * when {@code awaitRunning}, Running) or nothing progressed for {@link #STALL_LIMIT}.
     */
    Throughput run(String namespace, int pods, int concurrency, double podsPerSecond, boolean awaitRunning, IntFunction<String> podJson) throws Exception {
        long[] createdAt = new long[pods];
        Map<String, Long> boundAt = new ConcurrentHashMap<>();
        Map<String, Long> runningAt = new ConcurrentHashMap<>();
        String resourceVersion = readJson(client().require("GET", "/api/v1/namespaces/" + namespace + "/pods?limit=1", null))
                .path("metadata").path("resourceVersion").asText();
        ClusterClient watchClient = clients.get(clients.size() - 1);
        HttpRequest watchRequest = HttpRequest.newBuilder(watchClient.server().resolve(URI.create(
                        "/api/v1/namespaces/" + namespace + "/pods?watch=true&resourceVersion=" + resourceVersion)))
                .header("Accept", "application/json")
                .build();
        CompletableFuture<HttpResponse<Stream<String>>> watch = watchClient.httpClient().sendAsync(watchRequest, HttpResponse.BodyHandlers.ofLines());
        ExecutorService reader = Executors.newSingleThreadExecutor();
        try {
            reader.submit(() -> {
                try (Stream<String> lines = watch.get(60, TimeUnit.SECONDS).body()) {
                    lines.forEach(line -> {
                        long now = System.nanoTime();
                        JsonNode pod = readJson(line).path("object");
                        String name = pod.path("metadata").path("name").asText();
                        if (!pod.path("spec").path("nodeName").asText("").isEmpty()) {
                            boundAt.putIfAbsent(name, now);
                        }
                        if (pod.path("status").path("phase").asText().equals("Running")) {
                            runningAt.putIfAbsent(name, now);
                        }
                    });
                } catch (Exception e) {
                    // The stream ends when the run cancels it.
                }
                return null;
            });
            long createStart = System.nanoTime();
            AtomicInteger next = new AtomicInteger();
            try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<?>> futures = new ArrayList<>();
                for (int caller = 0; caller < concurrency; caller++) {
                    ClusterClient client = clients.get(caller % Math.max(1, clients.size() - 1));
                    futures.add(executor.submit(() -> {
                        for (int index = next.getAndIncrement(); index < pods; index = next.getAndIncrement()) {
                            if (podsPerSecond > 0) {
                                long due = createStart + (long) (index * 1e9 / podsPerSecond);
                                long wait = due - System.nanoTime();
                                if (wait > 0) {
                                    TimeUnit.NANOSECONDS.sleep(wait); // pacing the load to the asked rate, not synchronisation
                                }
                            }
                            createdAt[index] = System.nanoTime();
                            createPod(client, namespace, podJson.apply(index));
                        }
                        return null;
                    }));
                }
                for (Future<?> future : futures) {
                    future.get();
                }
            }
            long createEnd = System.nanoTime();
            double createsPerSecond = pods / ((createEnd - createStart) / 1e9);
            System.err.printf("bench: %s: %d creates at %.0f/s; waiting for bindings%n", namespace, pods, createsPerSecond);
            Map<String, Long> awaited = awaitRunning ? runningAt : boundAt;
            int lastCount = -1;
            long lastProgress = System.nanoTime();
            while (awaited.size() < pods && System.nanoTime() - lastProgress < STALL_LIMIT.toNanos()) {
                if (awaited.size() != lastCount) {
                    lastCount = awaited.size();
                    lastProgress = System.nanoTime();
                }
                Thread.sleep(200); // polling the watch reader's progress
            }
            long[] binds = boundAt.values().stream().mapToLong(Long::longValue).sorted().toArray();
            double bindsPerSecond = rate(binds, 0, binds.length - 1);
            double middle = rate(binds, binds.length / 10, binds.length * 9 / 10 - 1);
            Latencies startup = new Latencies();
            for (int index = 0; index < pods; index++) {
                Long running = runningAt.get(POD_NAME_PREFIX + index);
                if (running != null) {
                    startup.record(running - createdAt[index]);
                }
            }
            SchedulingThroughput sampled = SchedulingThroughput.of(binds, createStart, TimeUnit.SECONDS.toNanos(1));
            return new Throughput(pods, binds.length, createsPerSecond, bindsPerSecond, middle, startup, scheduledEvents(namespace), sampled);
        } finally {
            watch.thenAccept(open -> open.body().close()).cancel(true);
            reader.shutdownNow();
        }
    }

    /**
     * Creates one pod, trying again (at most three times) when the overloaded server drops the connection or answers
     * 429; a retried create that had in fact succeeded answers 409, which counts as created.
     */
    private static void createPod(ClusterClient client, String namespace, String podJson) {
        for (int attempt = 1; ; attempt++) {
            try {
                HttpResponse<String> response = client.send("POST", "/api/v1/namespaces/" + namespace + "/pods", podJson);
                int status = response.statusCode();
                if (status / 100 == 2 || (status == 409 && attempt > 1)) {
                    return;
                }
                if (status != 429 || attempt == 3) {
                    throw new IllegalStateException("POST pod answered " + status + ": " + response.body());
                }
            } catch (java.io.UncheckedIOException e) {
                if (attempt == 3) {
                    throw e;
                }
            }
        }
    }

    private static double rate(long[] sorted, int from, int to) {
        if (to <= from) {
            return Double.NaN;
        }
        return (to - from) / ((sorted[to] - sorted[from]) / 1e9);
    }

    private int scheduledEvents(String namespace) {
        int count = 0;
        String continueToken = "";
        do {
            JsonNode page = readJson(client().require("GET", "/api/v1/namespaces/" + namespace + "/events?limit=5000"
                    + (continueToken.isEmpty() ? "" : "&continue=" + encode(continueToken)), null));
            for (JsonNode event : page.path("items")) {
                if (event.path("reason").asText().equals("Scheduled")) {
                    count++;
                }
            }
            continueToken = page.path("metadata").path("continue").asText("");
        } while (!continueToken.isEmpty());
        return count;
    }

    /** Latency of listing every pod of the cluster: unchunked, and in pages of {@code chunkSize} as kubectl pages. */
    Latencies listAllPods(int chunkSize, int repetitions) {
        Latencies latencies = new Latencies();
        for (int repetition = 0; repetition < repetitions; repetition++) {
            long begin = System.nanoTime();
            if (chunkSize <= 0) {
                client().require("GET", "/api/v1/pods", null);
            } else {
                String continueToken = "";
                do {
                    JsonNode page = readJson(client().require("GET", "/api/v1/pods?limit=" + chunkSize
                            + (continueToken.isEmpty() ? "" : "&continue=" + encode(continueToken)), null));
                    continueToken = page.path("metadata").path("continue").asText("");
                } while (!continueToken.isEmpty());
            }
            latencies.record(System.nanoTime() - begin);
        }
        return latencies;
    }

    static String basicPod(String name, String namespace) {
        return pod(name, namespace, "basic", "");
    }

    /** Required node affinity on the zone label every simulated node carries, as upstream's SchedulingNodeAffinity. */
    static String nodeAffinityPod(String name, String namespace) {
        return pod(name, namespace, "node-affinity", """
                ,"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[
                 {"key":"topology.kubernetes.io/zone","operator":"In","values":["zone-a","zone-b","zone-c"]}]}]}}}""");
    }

    /** Required anti-affinity to each other per hostname, as upstream's SchedulingPodAntiAffinity: one pod per node. */
    static String antiAffinityPod(String name, String namespace) {
        return pod(name, namespace, "anti-affinity", """
                ,"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"bench":"anti-affinity"}},
                 "topologyKey":"kubernetes.io/hostname"}]}}""");
    }

    /** Spread over zones with maxSkew 1, as upstream's SchedulingPodTopologySpreading. */
    static String topologySpreadPod(String name, String namespace) {
        return pod(name, namespace, "spread", """
                ,"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"DoNotSchedule",
                 "labelSelector":{"matchLabels":{"bench":"spread"}}}]""");
    }

    static String priorityPod(String name, String namespace, String priorityClass, String cpu) {
        return """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"%s","labels":{"bench":"%s"}},
                 "spec":{"priorityClassName":"%s","containers":[{"name":"pause","image":"registry.k8s.io/pause:3.10",
                 "resources":{"requests":{"cpu":"%s","memory":"16Mi"}}}]}}""".formatted(name, namespace, priorityClass, priorityClass, cpu);
    }

    static String priorityClass(String name, int value) {
        return "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":{\"name\":\"" + name + "\"},\"value\":" + value + "}";
    }

    private static String pod(String name, String namespace, String label, String extraSpec) {
        return """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"%s","labels":{"bench":"%s"}},
                 "spec":{"containers":[{"name":"pause","image":"registry.k8s.io/pause:3.10",
                 "resources":{"requests":{"cpu":"10m","memory":"16Mi"}}}]%s}}""".formatted(name, namespace, label, extraSpec);
    }

    private static JsonNode readJson(String text) {
        try {
            return JSON.readTree(text);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("not JSON: " + text.substring(0, Math.min(200, text.length())), e);
        }
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
