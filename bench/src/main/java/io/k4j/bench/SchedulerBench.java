package io.k4j.bench;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.IntFunction;
import java.util.stream.Stream;

/**
 * Scheduler throughput and pod start-up measured end to end through the apiserver, as upstream's scheduler_perf
 * measures it: pods are created over the REST API, a watch sees when each gets its node and when the simulated
 * kubelet reports it Running. Throughput runs create their pods with h2load when it is given (see
 * {@link #runThroughput}). Not thread-safe: one run at a time.
 */
final class SchedulerBench {
    /**
     * Pod {@code index} of a run of named pods is named {@code pod-<index>} (every pod manifest function must follow
     * that); the pods of a throughput run have it as their {@code generateName}.
     */
    static final String POD_NAME_PREFIX = "pod-";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** A run ends when no pod got bound for this long, so that a stuck scheduler cannot hang the benchmark. */
    private static final Duration STALL_LIMIT = Duration.ofSeconds(90);
    /** h2load runs a throughput run's creation may take: the first, and again for what an overloaded server refused. */
    private static final int H2LOAD_ATTEMPTS = 3;

    private final List<ClusterClient> clients;
    private final ApiServerBench apiServer;
    private final Optional<H2Load> h2load;

    /**
     * @param clients JDK clients for everything but a throughput run's creates when h2load is given (the last one
     *     carries each run's watch, the others the JDK client's creates)
     * @param h2load the generator of throughput runs' creates, authenticated as a user who may create pods
     */
    SchedulerBench(List<ClusterClient> clients, Optional<H2Load> h2load) {
        this.clients = List.copyOf(requireNonNull(clients, "clients is null"));
        this.apiServer = new ApiServerBench(clients);
        this.h2load = requireNonNull(h2load, "h2load is null");
    }

    ClusterClient client() {
        return clients.get(0);
    }

    void createNamespace(String name) {
        apiServer.createNamespace(name);
    }

    /** Deletes the namespace's pods and waits until they are gone (the simulated nodes end them as kubelets would). */
    void deleteAllPods(String namespace) {
        apiServer.deleteAllPods(namespace);
    }

    /**
     * The outcome of one run.
     *
     * @param pods pods created
     * @param bound pods that got a node before the run ended
     * @param createsPerSecond creation rate over all creates
     * @param generatorCpuMillisPerCreate CPU the load generator spent per create: h2load's own, or, for the JDK
     *     client, the whole bench process's (its watch reader included) while it created
     * @param bindsPerSecond bindings per second from the first binding to the last
     * @param middleBindsPerSecond bindings per second between the 10th and the 90th percentile binding (steady state)
     * @param startup create ▶ Running latencies of the pods seen Running
     * @param scheduledEvents Scheduled events found in the namespace after the run
     * @param schedulingThroughput the per-second samples of scheduled pods as upstream's scheduler_perf takes them
     */
    record Throughput(int pods, int bound, double createsPerSecond, double generatorCpuMillisPerCreate, double bindsPerSecond, double middleBindsPerSecond, Latencies startup,
                      int scheduledEvents, SchedulingThroughput schedulingThroughput) {
        Throughput {
            requireNonNull(startup, "startup is null");
            requireNonNull(schedulingThroughput, "schedulingThroughput is null");
        }
    }

    /** Waits (bounded) until {@code count} nodes report Ready and have their pod CIDR, and returns how long that took from now. */
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
            System.err.println("bench: " + ready + " of " + count + " nodes Ready with a pod CIDR");
            Thread.sleep(5_000); // polling a remote condition; the interval only sets how often the list is fetched
        }
        throw new IllegalStateException("only " + ready + " of " + count + " nodes became Ready with a pod CIDR within " + timeout);
    }

    private int readyNodes() {
        int ready = 0;
        String continueToken = "";
        do {
            JsonNode page = readJson(client().require("GET", "/api/v1/nodes?limit=1000" + (continueToken.isEmpty() ? "" : "&continue=" + encode(continueToken)), null));
            for (JsonNode node : page.path("items")) {
                // A node still waiting for its pod CIDR gets one more Node update (node IPAM) during the runs, whose
                // watch events every node informer decodes: the runs start on a settled cluster.
                if (node.path("spec").path("podCIDR").asText("").isEmpty()) {
                    continue;
                }
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
     * Creates {@code pods} pods built by {@code podJson} (which must name pod {@code index} {@code pod-<index>}) in
     * {@code namespace} with {@code concurrency} callers of the JDK client, at {@code podsPerSecond} when that is positive
     * or else as fast as the API takes them, and waits until every pod is bound (and, when {@code awaitRunning},
     * Running) or nothing progressed for {@link #STALL_LIMIT}. Each pod's create time is kept, so the result has the
     * create ▶ Running latencies: this is the run for paced start-up measurements.
     */
    Throughput run(String namespace, int pods, int concurrency, double podsPerSecond, boolean awaitRunning, IntFunction<String> podJson) throws Exception {
        long[] createdAt = new long[pods];
        return measure(namespace, awaitRunning, () -> {
            createWithJdkClient(namespace, pods, concurrency, podsPerSecond, createdAt, podJson);
            return new Creation(pods, createdAt, Optional.empty());
        });
    }

    /**
     * Creates {@code pods} pods as fast as the API takes them with {@code concurrency} requests in flight and waits until
     * every created pod is bound or nothing progressed for {@link #STALL_LIMIT}: the scheduler throughput run. The
     * pods come from one body, {@code podOf} applied to a name prefix and the namespace, whose name becomes
     * {@code metadata.generateName}, so the server names them. The load comes from h2load when this bench has it (a
     * generator that costs the shared cores far less than the server it measures), else from the JDK client; the
     * result has no create ▶ Running latencies (the watch's bind times are what the throughput is computed from).
     */
    Throughput runThroughput(String namespace, int pods, int concurrency, BiFunction<String, String, String> podOf) throws Exception {
        String body = withGeneratedName(podOf.apply(POD_NAME_PREFIX, namespace));
        return measure(namespace, false, () -> {
            if (h2load.isEmpty()) {
                createWithJdkClient(namespace, pods, concurrency, 0, new long[pods], index -> body);
                return new Creation(pods, new long[0], Optional.empty());
            }
            return createWithH2Load(h2load.get(), namespace, pods, concurrency, body);
        });
    }

    /** Which load generator {@link #runThroughput} uses, with {@code concurrency} requests in flight, for the report. */
    String throughputGenerator(int concurrency) {
        if (h2load.isEmpty()) {
            return "the JDK HttpClient in the bench process, " + concurrency + " callers (h2load not used: install nghttp2-client)";
        }
        int connections = connections(concurrency);
        return "h2load (nghttp2) over HTTP/2+TLS, " + connections + " connections × " + concurrency / connections
                + " streams, one body per run with metadata.generateName";
    }

    /**
     * What a run's creation step did.
     *
     * @param created pods created
     * @param createdAt for a run of named pods, when the create of pod {@code pod-<index>} was sent; else empty
     * @param generatorCpu CPU an external generator reported; empty when the creates came from this process
     */
    private record Creation(int created, long[] createdAt, Optional<Duration> generatorCpu) {
        Creation {
            requireNonNull(createdAt, "createdAt is null");
            requireNonNull(generatorCpu, "generatorCpu is null");
        }
    }

    /** A run's creation step. */
    @FunctionalInterface
    private interface CreationStep {
        Creation create() throws Exception;
    }

    private Throughput measure(String namespace, boolean awaitRunning, CreationStep creationStep) throws Exception {
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
            Duration processCpuBefore = processCpu();
            long createStart = System.nanoTime();
            Creation creation = creationStep.create();
            long createEnd = System.nanoTime();
            Duration generatorCpu = creation.generatorCpu().orElseGet(() -> processCpu().minus(processCpuBefore));
            int pods = creation.created();
            double createsPerSecond = pods / ((createEnd - createStart) / 1e9);
            double generatorCpuMillisPerCreate = pods == 0 ? Double.NaN : generatorCpu.toNanos() / 1e6 / pods;
            System.err.printf("bench: %s: %d creates at %.0f/s (generator CPU %.3f ms/create); waiting for bindings%n", namespace, pods,
                    createsPerSecond, generatorCpuMillisPerCreate);
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
            for (int index = 0; index < creation.createdAt().length; index++) {
                Long running = runningAt.get(POD_NAME_PREFIX + index);
                if (running != null) {
                    startup.record(running - creation.createdAt()[index]);
                }
            }
            SchedulingThroughput sampled = SchedulingThroughput.of(binds, createStart, TimeUnit.SECONDS.toNanos(1));
            return new Throughput(pods, binds.length, createsPerSecond, generatorCpuMillisPerCreate, bindsPerSecond, middle, startup, scheduledEvents(namespace), sampled);
        } finally {
            watch.thenAccept(open -> open.body().close()).cancel(true);
            reader.shutdownNow();
        }
    }

    private void createWithJdkClient(String namespace, int pods, int concurrency, double podsPerSecond, long[] createdAt, IntFunction<String> podJson)
            throws Exception {
        long createStart = System.nanoTime();
        AtomicInteger next = new AtomicInteger();
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> futures = new ArrayList<>();
            for (int caller = 0; caller < concurrency; caller++) {
                // The last client carries the run's watch.
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
    }

    /**
     * Creates {@code pods} pods from one generateName body with h2load and returns how many the server created. Requests
     * that did not succeed (a 429 or a connection the overloaded server dropped) are sent again in another h2load run,
     * at most {@link #H2LOAD_ATTEMPTS} runs in all; a dropped request the server had in fact carried out then creates one
     * pod more, which the run's wait for bindings does not mind (it waits for the created count, not for names).
     */
    private static Creation createWithH2Load(H2Load generator, String namespace, int pods, int concurrency, String body) {
        int created = 0;
        Duration cpu = Duration.ZERO;
        for (int attempt = 1; attempt <= H2LOAD_ATTEMPTS && created < pods; attempt++) {
            int remaining = pods - created;
            int connections = Math.min(connections(concurrency), remaining);
            int streams = Math.max(1, Math.min(concurrency, remaining) / connections);
            H2Load.Run run = generator.post("/api/v1/namespaces/" + namespace + "/pods", body, remaining, connections, streams);
            created += run.succeeded();
            cpu = cpu.plus(run.generatorCpu());
            if (run.succeeded() < remaining) {
                System.err.printf("bench: %s: h2load run %d created %d of %d pods%s%n", namespace, attempt, run.succeeded(), remaining,
                        attempt < H2LOAD_ATTEMPTS ? "; sending the rest again" : "");
            }
        }
        if (created == 0 && pods > 0) {
            throw new IllegalStateException("h2load created none of " + pods + " pods in " + namespace);
        }
        return new Creation(created, new long[0], Optional.of(cpu));
    }

    /** h2load's connections for {@code concurrency} requests in flight: at most 4, as the apiserver suite uses it. */
    private static int connections(int concurrency) {
        return Math.max(1, Math.min(concurrency, 4));
    }

    /** A pod manifest whose {@code metadata.name} becomes its {@code metadata.generateName}. */
    static String withGeneratedName(String podJson) {
        JsonNode pod = readJson(podJson);
        if (!(pod.path("metadata") instanceof ObjectNode metadata) || metadata.path("name").asText("").isEmpty()) {
            throw new IllegalArgumentException("the pod has no metadata.name: " + podJson);
        }
        metadata.put("generateName", metadata.remove("name").asText());
        try {
            return JSON.writeValueAsString(pod);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Duration processCpu() {
        return ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO);
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
