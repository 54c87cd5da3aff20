package io.k4j.bench;

import static org.awaitility.Awaitility.await;

import static io.k4j.bench.Commands.log;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.k4j.e2e.K4jServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

/**
 * Issue 4's benchmark ({@code ./k4j bench --suite pod-startup}): pod startup latency on one real node, from the create
 * request to the watch event that shows the pod Running and Ready, for one pod at a time and for two batches created at
 * once, beside the same busybox container started with {@code ctr run} against the node's own containerd in the same
 * run (no sandbox, no network, no API: the runtime's physical limit). The image is pulled by a warm-up pod first, so
 * neither side measures a pull (upstream's pod startup SLO excludes pulls too). Also the RSS of the node agent, which
 * lives inside the {@code k4j server} process (so the server's whole RSS is reported), and separately of containerd
 * and its shims, idle and with the batch running. Not thread-safe.
 */
final class PodStartupBench {
    private static final String NAMESPACE = "startup";
    private static final String IMAGE = "docker.io/library/busybox:latest";
    private static final String CTR_NAMESPACE = "k8s.io";
    /** The target: a pod may start this much later than the same container under {@code ctr run}. */
    private static final int TARGET_MARGIN_MILLIS = 300;
    /** The machine's cores, which the k4j server, the container runtime and the kernel share while a batch starts. */
    private static final int CORES = Runtime.getRuntime().availableProcessors();

    private final ObjectMapper json = new ObjectMapper();
    private final ClusterClient client;
    private final K4jServer server;
    private final Path socket;
    private final Map<String, Long> created = new ConcurrentHashMap<>();
    private final Map<String, Long> ready = new ConcurrentHashMap<>();
    /** When the watch first showed each pod bound to the node (spec.nodeName set). */
    private final Map<String, Long> bound = new ConcurrentHashMap<>();
    /** When the watch first showed each pod with a status from the kubelet (a hostIP). */
    private final Map<String, Long> kubeletStatus = new ConcurrentHashMap<>();

    private PodStartupBench(K4jServer server) {
        this.server = server;
        this.client = ClusterClient.fromKubeconfig(server.kubeconfig()).connected(Duration.ofMinutes(2));
        this.socket = server.dataDirectory().resolve("agent/containerd/containerd.sock");
    }

    /** @param serverVerbosity the server's {@code -v}: 2 logs where each pod's sync spent its time */
    static String run(Path directory, int pods, int singleRuns, int serverVerbosity) throws Exception {
        if (!"root".equals(System.getProperty("user.name"))) {
            throw new IllegalStateException("the pod-startup suite needs root: it runs a real node (containerd, CNI)");
        }
        log("pod-startup: starting k4j server with its real node (waits for a free real-node slot)");
        Path data = directory.resolve("node");
        K4jServer server = K4jServer.startWithNode(data, "-v", Integer.toString(serverVerbosity));
        try {
            return new PodStartupBench(server).measure(pods, singleRuns);
        } finally {
            // The server's log outlives the bench's work directory, for a look at where the time went: one file, which
            // the next run replaces.
            Path log = Path.of(System.getProperty("java.io.tmpdir"), "k4j-pod-startup-server.log");
            server.closeAndRemoveNode(log);
            log("pod-startup: the server's log is in " + log);
        }
    }

    private String measure(int pods, int singleRuns) throws Exception {
        awaitNodeReady();
        client.require("POST", "/api/v1/namespaces", "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" + NAMESPACE + "\"}}");
        awaitCondition("the default service account of " + NAMESPACE, Duration.ofMinutes(2),
                () -> client.send("GET", "/api/v1/namespaces/" + NAMESPACE + "/serviceaccounts/default", null).statusCode() == 200);
        Thread watch = Thread.ofVirtual().name("pod-startup-watch").start(this::watchPods);
        try {
            long settleDeadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            log("pod-startup: node ready; letting it settle for the idle RSS");
            while (System.nanoTime() < settleDeadline) {
                Thread.sleep(500);
            }
            Rss idle = rss();
            log("pod-startup: warm-up pod (pulls busybox and pause)");
            startPods(List.of("warm-up"), Duration.ofMinutes(5));
            deletePods(List.of("warm-up"));

            log("pod-startup: " + singleRuns + " single pods, one after the other");
            Latencies single = new Latencies();
            for (int run = 0; run < singleRuns; run++) {
                String name = "single-" + run;
                single.record(startPods(List.of(name), Duration.ofMinutes(2)).get(0));
                logTimeline(name, created.get(name));
                deletePods(List.of(name));
            }
            // The first batch after start runs while the JIT compiles the paths a pod start takes through the server (the
            // kubelet, the scheduler, the controllers, the apiserver); the second shows a server that has started pods before.
            Batch first = startBatch("first", pods);
            Batch second = startBatch("second", pods);
            Rss loaded = second.rss();

            log("pod-startup: " + singleRuns + " single containers with ctr run");
            Latencies ctrSingle = new Latencies();
            for (int run = 0; run < singleRuns; run++) {
                String id = "k4j-bench-single-" + run;
                ctrSingle.record(ctrRun(id));
                ctrRemove(List.of(id));
            }
            log("pod-startup: " + pods + " containers with ctr run at once");
            List<String> ids = Stream.iterate(0, i -> i + 1).limit(pods).map(i -> "k4j-bench-batch-" + i).toList();
            Latencies ctrBatch = new Latencies();
            NodeCpu ctrBatchCpu;
            try {
                List<Future<Long>> runs = new ArrayList<>();
                NodeCpu.Snapshot before = nodeCpu();
                try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
                    for (String id : ids) {
                        runs.add(executor.submit(() -> ctrRun(id)));
                    }
                }
                ctrBatchCpu = NodeCpu.between(before, nodeCpu());
                for (Future<Long> run : runs) {
                    ctrBatch.record(run.get());
                }
            } finally {
                ctrRemove(ids);
            }
            String load = Commands.loadAverage();
            return String.format(Locale.ROOT, """

                    | start | samples | k4j pod p50 ms | k4j pod p99 ms | `ctr run` p50 ms | `ctr run` p99 ms | p99 − ctr p99 (target ≤ %d ms) |
                    |---|---|---|---|---|---|---|
                    | 1 pod at a time | %d | %.0f | %.0f | %.0f | %.0f | %.0f |
                    | %d pods at once, first batch after start | %d | %.0f | %.0f | %.0f | %.0f | %.0f |
                    | %d pods at once, second batch | %d | %.0f | %.0f | %.0f | %.0f | %.0f |

                    k4j pod: from the create request to the watch event showing phase Running and condition Ready (busybox `sleep`, no
                    probes, image present: pulled by a warm-up pod, and `imagePullPolicy: IfNotPresent`, as upstream's pod startup SLO
                    excludes image pulls; busybox's `latest` tag would otherwise ask the registry on every start). `ctr run`: `ctr -n k8s.io run -d` of the same image against the
                    node's own containerd socket, from starting ctr to its exit once the task runs (a container without the pod's
                    sandbox, network or API round trips, so the physical limit; the %d at once run concurrently). Each batch is deleted
                    before the next starts. The server's CPU while a batch started (create of the first pod to the last one Ready): first
                    batch %.2f s (%s), second %.2f s (%s); JIT is the compiler threads, GC the collector's.
                    Where the second batch's time goes, from the create request (p50 / p99, as the watch saw it): bound to the node
                    %.0f / %.0f ms, first status from the kubelet (hostIP) %.0f / %.0f ms, Running and Ready %.0f / %.0f ms.
                    The machine's CPU meanwhile (both cores; runc, the CNI plugins and ctr counted with the process that reaped them):
                    second batch %s; the %d `ctr run` at once %s. The container runtime's part (containerd and
                    the shims): %.0f ms per pod, %.0f ms per `ctr run` container. Spread over all %d cores, the runtime's
                    CPU for the second batch alone fills %.0f ms, against the %.0f ms (`ctr run` p99 + %d ms) the target
                    leaves the batch's pods for all their work.

                    | RSS | idle (node Ready, no pods) | with %d pods Running |
                    |---|---|---|
                    | k4j server process (apiserver, storage, controllers, scheduler and the node agent: kubelet in the same JVM) | %d MiB | %d MiB |
                    | containerd | %d MiB | %d MiB |
                    | containerd shims (%d / %d processes) | %d MiB | %d MiB |

                    Load average %s at the end.
                    """,
                    TARGET_MARGIN_MILLIS,
                    single.count(), single.percentileMillis(50), single.percentileMillis(99), ctrSingle.percentileMillis(50),
                    ctrSingle.percentileMillis(99), single.percentileMillis(99) - ctrSingle.percentileMillis(99),
                    pods, first.started().count(), first.started().percentileMillis(50), first.started().percentileMillis(99), ctrBatch.percentileMillis(50),
                    ctrBatch.percentileMillis(99), first.started().percentileMillis(99) - ctrBatch.percentileMillis(99),
                    pods, second.started().count(), second.started().percentileMillis(50), second.started().percentileMillis(99), ctrBatch.percentileMillis(50),
                    ctrBatch.percentileMillis(99), second.started().percentileMillis(99) - ctrBatch.percentileMillis(99),
                    pods, first.serverCpu().total().toMillis() / 1e3, first.serverCpu().shares(), second.serverCpu().total().toMillis() / 1e3,
                    second.serverCpu().shares(), second.toBound().percentileMillis(50), second.toBound().percentileMillis(99),
                    second.toKubeletStatus().percentileMillis(50), second.toKubeletStatus().percentileMillis(99),
                    second.started().percentileMillis(50), second.started().percentileMillis(99),
                    second.nodeCpu().describe(), pods, ctrBatchCpu.describe(),
                    NodeCpu.seconds(second.nodeCpu().runtime()) * 1e3 / pods, NodeCpu.seconds(ctrBatchCpu.runtime()) * 1e3 / pods,
                    CORES, NodeCpu.seconds(second.nodeCpu().runtime()) * 1e3 / CORES, ctrBatch.percentileMillis(99) + TARGET_MARGIN_MILLIS, TARGET_MARGIN_MILLIS,
                    pods, idle.server() >> 20, loaded.server() >> 20, idle.containerd() >> 20, loaded.containerd() >> 20,
                    idle.shimCount(), loaded.shimCount(), idle.shims() >> 20, loaded.shims() >> 20, load);
        } finally {
            watch.interrupt();
        }
    }

    /** One batch: each pod's start-up latency and its parts, the server's CPU meanwhile, and the RSS with the batch running. */
    private record Batch(Latencies started, Latencies toBound, Latencies toKubeletStatus, ProcessCpu serverCpu, NodeCpu nodeCpu, Rss rss) {}

    /** Starts {@code pods} pods at once, records the batch, and deletes it. */
    private Batch startBatch(String label, int pods) throws Exception {
        log("pod-startup: " + label + " batch, " + pods + " pods created at once");
        List<String> names = Stream.iterate(0, i -> i + 1).limit(pods).map(i -> label + "-" + i).toList();
        ProcessCpu cpuBefore = ProcessCpu.of(server.pid());
        NodeCpu.Snapshot nodeCpuBefore = nodeCpu();
        Latencies started = new Latencies();
        startPods(names, Duration.ofMinutes(5)).forEach(started::record);
        ProcessCpu serverCpu = ProcessCpu.of(server.pid()).minus(cpuBefore);
        NodeCpu nodeCpu = NodeCpu.between(nodeCpuBefore, nodeCpu());
        Rss loaded = rss();
        Latencies toBound = new Latencies();
        Latencies toKubeletStatus = new Latencies();
        long batchStart = names.stream().mapToLong(created::get).min().orElseThrow();
        log("pod-startup: the " + label + " batch's first create was sent at " + java.time.LocalTime.now().minusNanos(System.nanoTime() - batchStart));
        for (String name : names) {
            toBound.record(bound.getOrDefault(name, ready.get(name)) - created.get(name));
            toKubeletStatus.record(kubeletStatus.getOrDefault(name, ready.get(name)) - created.get(name));
            logTimeline(name, batchStart);
        }
        log("pod-startup: deleting the " + label + " batch");
        deletePods(names);
        return new Batch(started, toBound, toKubeletStatus, serverCpu, nodeCpu, loaded);
    }

    /** A pod's timeline from {@code origin} (a create request's time), to set beside the server's -v 2 sync lines. */
    private void logTimeline(String name, long origin) {
        log(String.format(Locale.ROOT, "pod-startup: %s created +%d ms, bound +%d ms, first kubelet status +%d ms, Running and Ready +%d ms",
                name, (created.get(name) - origin) / 1_000_000, (bound.getOrDefault(name, ready.get(name)) - origin) / 1_000_000,
                (kubeletStatus.getOrDefault(name, ready.get(name)) - origin) / 1_000_000, (ready.get(name) - origin) / 1_000_000));
    }

    /** Creates the pods at once and returns each one's latency (nanoseconds) from its create request to Running+Ready. */
    private List<Long> startPods(List<String> names, Duration timeout) throws Exception {
        List<Future<?>> creates = new ArrayList<>();
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            for (String name : names) {
                creates.add(executor.submit(() -> {
                    created.put(name, System.nanoTime());
                    client.require("POST", "/api/v1/namespaces/" + NAMESPACE + "/pods", podBody(name));
                    return null;
                }));
            }
        }
        for (Future<?> create : creates) {
            create.get();
        }
        awaitCondition(names.size() + " pod(s) Running and Ready", timeout, () -> names.stream().allMatch(ready::containsKey));
        return names.stream().map(name -> ready.get(name) - created.get(name)).toList();
    }

    private String podBody(String name) {
        return """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s"},
                 "spec":{"terminationGracePeriodSeconds":1,"containers":[{"name":"sleep","image":"busybox","imagePullPolicy":"IfNotPresent","command":["sleep","3600"]}]}}
                """.formatted(name);
    }

    private void deletePods(List<String> names) throws Exception {
        for (String name : names) {
            client.require("DELETE", "/api/v1/namespaces/" + NAMESPACE + "/pods/" + name, null);
        }
        awaitCondition("deleted pods gone", Duration.ofMinutes(3), () -> names.stream()
                .allMatch(name -> client.send("GET", "/api/v1/namespaces/" + NAMESPACE + "/pods/" + name, null).statusCode() == 404));
    }

    /** Records when each pod is first seen Running and Ready, for as long as the bench runs (reconnects when the watch ends). */
    private void watchPods() {
        String resourceVersion = "";
        while (!Thread.currentThread().isInterrupted()) {
            try {
                if (resourceVersion.isEmpty()) {
                    resourceVersion = json.readTree(client.require("GET", "/api/v1/namespaces/" + NAMESPACE + "/pods", null))
                            .path("metadata").path("resourceVersion").asText();
                }
                HttpRequest request = HttpRequest.newBuilder(client.server().resolve("/api/v1/namespaces/" + NAMESPACE
                        + "/pods?watch=1&allowWatchBookmarks=false&resourceVersion=" + resourceVersion)).GET().build();
                HttpResponse<Stream<String>> response = client.httpClient().send(request, HttpResponse.BodyHandlers.ofLines());
                if (response.statusCode() != 200) {
                    resourceVersion = "";
                    continue;
                }
                try (Stream<String> lines = response.body()) {
                    for (String line : (Iterable<String>) lines::iterator) {
                        long now = System.nanoTime();
                        JsonNode event = json.readTree(line);
                        JsonNode pod = event.path("object");
                        if (event.path("type").asText().equals("ERROR")) {
                            resourceVersion = "";
                            break;
                        }
                        resourceVersion = pod.path("metadata").path("resourceVersion").asText(resourceVersion);
                        String name = pod.path("metadata").path("name").asText();
                        if (!pod.path("spec").path("nodeName").asText().isEmpty()) {
                            bound.putIfAbsent(name, now);
                        }
                        if (!pod.path("status").path("hostIP").asText().isEmpty()) {
                            kubeletStatus.putIfAbsent(name, now);
                        }
                        if (runningAndReady(pod)) {
                            ready.putIfAbsent(name, now);
                        }
                    }
                }
            } catch (IOException e) {
                // The watch broke: watch again from the last version seen.
            } catch (InterruptedException e) {
                return;
            } catch (UncheckedIOException e) {
                resourceVersion = "";
            }
        }
    }

    private static boolean runningAndReady(JsonNode pod) {
        if (!pod.path("status").path("phase").asText().equals("Running")) {
            return false;
        }
        for (JsonNode condition : pod.path("status").path("conditions")) {
            if (condition.path("type").asText().equals("Ready")) {
                return condition.path("status").asText().equals("True");
            }
        }
        return false;
    }

    private void awaitNodeReady() throws Exception {
        awaitCondition("the node Ready", Duration.ofMinutes(5), () -> {
            JsonNode nodes = json.readTree(client.require("GET", "/api/v1/nodes", null));
            for (JsonNode node : nodes.path("items")) {
                for (JsonNode condition : node.path("status").path("conditions")) {
                    if (condition.path("type").asText().equals("Ready") && condition.path("status").asText().equals("True")) {
                        return true;
                    }
                }
            }
            return false;
        });
    }

    /** Starts one busybox container with ctr and returns how long ctr took (it exits once the task runs). */
    private long ctrRun(String id) throws Exception {
        long start = System.nanoTime();
        Commands.run(List.of("ctr", "--address", socket.toString(), "-n", CTR_NAMESPACE, "run", "-d", IMAGE, id, "sleep", "3600"), null);
        return System.nanoTime() - start;
    }

    private void ctrRemove(List<String> ids) throws Exception {
        for (String id : ids) {
            Commands.attempt(List.of("ctr", "--address", socket.toString(), "-n", CTR_NAMESPACE, "task", "rm", "-f", id), null);
            Commands.attempt(List.of("ctr", "--address", socket.toString(), "-n", CTR_NAMESPACE, "container", "rm", id), null);
        }
    }

    private NodeCpu.Snapshot nodeCpu() {
        return NodeCpu.snapshot(server.pid(), server.dataDirectory());
    }

    private record Rss(long server, long containerd, long shims, int shimCount) {}

    /** The server's RSS, containerd's, and the sum over the shims serving this node's containerd. */
    private Rss rss() {
        NodeProcesses runtime = NodeProcesses.of(server.dataDirectory());
        return new Rss(Commands.residentSetBytes(server.pid()), sumOfResidentSets(runtime.containerd()), sumOfResidentSets(runtime.shims()),
                runtime.shims().size());
    }

    private static long sumOfResidentSets(List<Long> pids) {
        return pids.stream().mapToLong(Commands::residentSetBytes).sum();
    }

    /** Awaits a condition, polling every 50 ms (short: the pod-startup run measures latencies of a second or less). */
    private static void awaitCondition(String what, Duration timeout, Callable<Boolean> check) {
        await(what).atMost(timeout).pollInterval(Duration.ofMillis(50)).until(check);
    }
}
