package io.k4j.bench;

import static java.util.Objects.requireNonNull;

import io.k4j.e2e.K4jServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.BiFunction;

/**
 * Issue 3's benchmark ({@code ./k4j bench --suite scheduler}): scheduling throughput on simulated nodes beside upstream's
 * published scheduler_perf figures, preemption, and a large cluster's memory, LIST and pod start-up latency. Each
 * measurement is appended to the benchmarks document as soon as it is done, so a long run keeps what it measured.
 * Not thread-safe.
 */
final class SchedulerSuite {
    /** The header of the throughput runs' table, a format string. */
    private static final String THROUGHPUT_TABLE = "| run | pods | creates in flight | creates/s | generator CPU ms/create | server CPU ms/pod | of which JIT / GC | bound "
            + "| binds/s first▶last | binds/s middle 80%% | SchedulingThroughput avg / p50 (as scheduler_perf) | upstream pods/s | ratio (avg / upstream) "
            + "| Scheduled events | machine load (1 min) at end |%n"
            + "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|%n";

    /** The runs, in the order they are measured. */
    static final List<String> RUNS = List.of("basic", "node-affinity", "anti-affinity", "spread", "scale", "basic-500", "preemption");

    private final Path output;
    private final Path work;
    private final int nodes;
    private final int basicPods;
    private final int variantPods;
    private final int scalePods;
    private final int startupPods;
    private final Set<String> runs;
    private final Optional<Path> h2load;
    /** Unmeasured pods before SchedulingBasic's measured ones, as upstream's 5000Nodes workload ({@code initPods}). */
    private static final int BASIC_INIT_PODS = 1_000;
    /** Upstream's SchedulingBasic figure, pods/s, and how its row names upstream's published bars. */
    private static final double BASIC_UPSTREAM = 1_150;
    private static final String BASIC_UPSTREAM_TEXT = "270 CI threshold, ~1,150 measured";
    /**
     * The compiler threads' share of a warm round's server CPU under which the JIT counts as caught up. In session 32's
     * runs the share was 22–27 % in the first two warm rounds and 2–5 % by the fourth.
     */
    private static final double WARM_COMPILER_SHARE = 0.05;
    /** Warm rounds at most, if the compiler never falls under that share. */
    private static final int MAX_WARM_ROUNDS = 6;
    /** Requests in flight while a throughput run creates its pods, whichever generator sends them. */
    private static final int CREATES_IN_FLIGHT = 32;
    /** One window of the server's CPU at rest (nodes Ready, no pods), measured until two in a row agree. */
    private static final Duration REST_WINDOW = Duration.ofSeconds(10);
    /** Windows after which the runs start even if the server's CPU at rest has not settled. */
    private static final int MAX_REST_WINDOWS = 18;
    /**
     * The first window that may count as settled. The catch-up after the nodes turn Ready starts with a plateau that two
     * windows in a row can agree on before it falls: 425 and 407, 445 and 457 ms per second in session 30's runs, which
     * then settled at 165–230 ms per second in their fourth to eighth window.
     */
    private static final int MIN_REST_WINDOWS = 4;
    /** How close two windows in a row must be for the server to count as settled. */
    private static final double SETTLED_WITHIN = 0.10;
    /**
     * The JIT compiler's share of a window's server CPU under which the server counts as at rest. Session 36 found the
     * old criteria met 40 s after the nodes were Ready while C2 still took 80-100 of the 150-200 ms per second,
     * compiling the heartbeats' paths until about 70 s after the start, and so into the first run; at rest it takes
     * 0-11 of 67-98 ms per second.
     */
    private static final double REST_COMPILER_SHARE = 0.10;
    /** A directory for a JFR recording of the server per throughput run, when the system property names one. */
    private static final Optional<Path> RECORDINGS = Optional.ofNullable(System.getProperty("k4j.bench.server-jfr")).map(Path::of);

    /** @param h2load the h2load executable for the throughput runs' creates; without it the JDK client creates them */
    SchedulerSuite(Path output, Path work, int nodes, int basicPods, int variantPods, int scalePods, int startupPods, Set<String> runs,
                   Optional<Path> h2load) {
        this.output = requireNonNull(output, "output is null");
        this.work = requireNonNull(work, "work is null");
        this.nodes = nodes;
        this.basicPods = basicPods;
        this.variantPods = variantPods;
        this.scalePods = scalePods;
        this.startupPods = startupPods;
        this.runs = Set.copyOf(runs);
        this.h2load = requireNonNull(h2load, "h2load is null");
        for (String run : runs) {
            if (!RUNS.contains(run)) {
                throw new IllegalArgumentException("unknown run " + run + "; use some of " + RUNS);
            }
        }
    }

    void run(String header) throws Exception {
        append(header);
        if (runs.stream().anyMatch(run -> !run.equals("preemption") && !run.equals("basic-500"))) {
            runMainCluster();
        }
        if (runs.contains("preemption") || runs.contains("basic-500")) {
            runPreemption();
        }
    }

    private void runMainCluster() throws Exception {
        Path config = work.resolve("zones.yaml");
        Files.createDirectories(work);
        Files.writeString(config, "zones: [zone-a, zone-b, zone-c]\n");
        log("starting k4j server with " + nodes + " simulated nodes");
        String token = UUID.randomUUID().toString();
        try (K4jServer server = K4jServer.start(work.resolve("main"), "--simulated-nodes=" + nodes, "--cluster-cidr=10.0.0.0/8",
                "--simulated-node-config=" + config, "--token-auth-file=" + H2Load.adminTokenFile(work.resolve("main-tokens.csv"), token))) {
            SchedulerBench bench = bench(server, token, work.resolve("main"));
            Duration nodesReady = bench.awaitReadyNodes(nodes, Duration.ofMinutes(15));
            append(String.format(Locale.ROOT, "%nServer: `k4j server --simulated-nodes=%d --cluster-cidr=10.0.0.0/8 --simulated-node-config=<zones: zone-a, zone-b, zone-c>` "
                    + "(heap limit %s); all %d nodes Ready with a pod CIDR %.0f s after the server was ready. Load generator of the runs below: %s.%n%n"
                    + THROUGHPUT_TABLE, nodes, Main.serverHeap(), nodes, nodesReady.toMillis() / 1000.0,
                    bench.throughputGenerator(CREATES_IN_FLIGHT)));
            log("waiting for the server's CPU at rest (heartbeats only) to settle, in windows of " + REST_WINDOW.toSeconds() + " s");
            Rest rest = settledRestCpu(server.pid());
            String restText = String.format(Locale.ROOT, "Server CPU at rest with %d simulated nodes and no pods (heartbeats, node status, informers): "
                    + "%.0f ms per second, in the window of %d s that ended %d s after the nodes were Ready (%s; the first window gave %.0f ms per second). "
                    + "The runs start then, as upstream's scheduler_perf starts on nodes that were created and are still.",
                    nodes, rest.millisPerSecond(), REST_WINDOW.toSeconds(), rest.windows() * REST_WINDOW.toSeconds(),
                    rest.settled() ? "settled: within " + Math.round(SETTLED_WITHIN * 100) + " % of the window before, the JIT under "
                            + Math.round(REST_COMPILER_SHARE * 100) + " % of it" : "not settled after " + rest.windows() + " windows",
                    rest.firstMillisPerSecond());
            log(restText);
            int total = 0;
            if (runs.contains("basic")) {
                total += initPods(bench, "basic-init", BASIC_INIT_PODS, SchedulerBench::basicPod);
                total += throughputRow(server, bench, "SchedulingBasic", "basic", basicPods, BASIC_UPSTREAM, BASIC_UPSTREAM_TEXT, SchedulerBench::basicPod).pods();
                // The first run's server still compiles its per-pod paths (the JIT's share is in the row); a cluster
                // that has run for a while has not. The same run again, on the same cluster state, shows that server,
                // repeated until the compiler has caught up: its one C2 thread on two cores stays behind for rounds.
                String previous = "basic";
                for (int round = 1; round <= MAX_WARM_ROUNDS; round++) {
                    String namespace = round == 1 ? "basic-warm" : "basic-warm-" + round;
                    log("SchedulingBasic again on the warm server (round " + round + "): deleting the previous run's pods first");
                    bench.deleteAllPods(previous);
                    ProcessCpu warm = throughputRow(server, bench, round == 1 ? "SchedulingBasic, warm" : "SchedulingBasic, warm " + round,
                            namespace, basicPods, BASIC_UPSTREAM, BASIC_UPSTREAM_TEXT, SchedulerBench::basicPod).serverCpu();
                    previous = namespace;
                    if (warm.compilerShare() < WARM_COMPILER_SHARE) {
                        break;
                    }
                }
            }
            if (runs.contains("node-affinity")) {
                total += throughputRow(server, bench, "SchedulingNodeAffinity", "node-affinity", variantPods, 0, "n/a", SchedulerBench::nodeAffinityPod).pods();
            }
            if (runs.contains("anti-affinity")) {
                total += throughputRow(server, bench, "SchedulingPodAntiAffinity", "anti-affinity", Math.min(variantPods, nodes), 60, "60", SchedulerBench::antiAffinityPod).pods();
            }
            if (runs.contains("spread")) {
                total += throughputRow(server, bench, "SchedulingPodTopologySpreading", "spread", variantPods, 85, "85", SchedulerBench::topologySpreadPod).pods();
            }
            append(String.format(Locale.ROOT, "%n%s Server CPU ms/pod: the server process's user + system CPU from the first create until the "
                    + "last pod was bound, over the pods bound (heartbeats of the period included).%s%n", restText,
                    runs.contains("basic") ? String.format(Locale.ROOT, " SchedulingBasic's measured pods follow %d unmeasured ones that stay bound, "
                            + "as upstream's workload creates initPods before its measured step. \"SchedulingBasic, warm\" is the same run once more "
                            + "after the previous run's pods were deleted: the same pods in the cluster, on a server that has run the per-pod "
                            + "paths before; it is repeated (warm 2, 3, ...) until the JIT compiler's threads take under %.0f %% of a run's "
                            + "server CPU, at most %d times, as a server that has run for a while no longer compiles them.",
                            BASIC_INIT_PODS, WARM_COMPILER_SHARE * 100, MAX_WARM_ROUNDS) : ""));
            if (runs.contains("scale")) {
                runScale(server, bench, total);
            }
        }
    }

    /**
     * The pods a workload of upstream's scheduler_perf creates before its measured step ({@code initPods}): scheduled
     * and left in the cluster, not measured. Returns the pods bound.
     */
    private int initPods(SchedulerBench bench, String namespace, int pods, BiFunction<String, String, String> podsOf) throws Exception {
        log("creating " + pods + " unmeasured pods first, as upstream's workload does (namespace " + namespace + ")");
        bench.createNamespace(namespace);
        SchedulerBench.Throughput result = bench.runThroughput(namespace, pods, CREATES_IN_FLIGHT, podsOf);
        log(String.format(Locale.ROOT, "%d of %d unmeasured pods bound, %.0f binds/s", result.bound(), pods, result.bindsPerSecond()));
        return result.bound();
    }

    /** One throughput row's outcome: the pods the run created and the server's CPU while they were bound. */
    private record Row(int pods, ProcessCpu serverCpu) {
    }

    private Row throughputRow(K4jServer server, SchedulerBench bench, String name, String namespace, int pods, double upstream, String upstreamText,
                              BiFunction<String, String, String> podsOf) throws Exception {
        log(name + ": " + pods + " pods");
        bench.createNamespace(namespace);
        Optional<Path> recording = startRecording(server.pid(), namespace);
        ProcessCpu serverCpuBefore = ProcessCpu.of(server.pid());
        SchedulerBench.Throughput result = bench.runThroughput(namespace, pods, CREATES_IN_FLIGHT, podsOf);
        ProcessCpu serverCpu = ProcessCpu.of(server.pid()).minus(serverCpuBefore);
        if (recording.isPresent()) {
            stopRecording(server.pid(), namespace, recording.get());
        }
        SchedulingThroughput sampled = result.schedulingThroughput();
        append(String.format(Locale.ROOT, "| %s | %d | %d | %.0f | %.3f | %.2f | %s | %d | %.0f | %.0f | %.0f / %.0f | %s | %s | %d | %s |%n", name, result.pods(), CREATES_IN_FLIGHT,
                result.createsPerSecond(), result.generatorCpuMillisPerCreate(), result.bound() == 0 ? Double.NaN : serverCpu.total().toNanos() / 1e6 / result.bound(),
                serverCpu.shares(" / "), result.bound(), result.bindsPerSecond(), result.middleBindsPerSecond(), sampled.average(), sampled.percentile(50), upstreamText,
                upstream > 0 ? String.format(Locale.ROOT, "%.2f", sampled.average() / upstream) : "n/a", result.scheduledEvents(), loadAverage()));
        return new Row(pods, serverCpu);
    }

    private void runScale(K4jServer server, SchedulerBench bench, int existing) throws Exception {
        int fill = Math.max(0, scalePods - existing - startupPods);
        log("scale: filling the cluster with " + fill + " more pods");
        bench.createNamespace("scale");
        SchedulerBench.Throughput filled = bench.runThroughput("scale", fill, CREATES_IN_FLIGHT, SchedulerBench::basicPod);
        int total = existing + filled.bound();
        log("scale: " + total + " pods bound; measuring memory and LIST");
        String heap = heapAfterFullGc(server.pid());
        long rss = server.residentSetBytes();
        Latencies unchunked = bench.listAllPods(0, 3);
        Latencies chunked = bench.listAllPods(500, 3);
        append(String.format(Locale.ROOT, "%nScale: %d simulated nodes, %d pods in the cluster (the runs above plus %d more created at %.0f/s, bound at %.0f/s middle 80%%). "
                        + "Server heap after a full GC: %s; RSS %d MiB. LIST all pods (`GET /api/v1/pods`): unchunked best %.0f ms / median %.0f ms; "
                        + "in pages of 500 as kubectl: best %.0f ms / median %.0f ms. Machine load (1 min): %s.%n",
                nodes, total + startupPods, fill, filled.createsPerSecond(), filled.middleBindsPerSecond(), heap, rss / (1024 * 1024),
                unchunked.percentileMillis(0), unchunked.percentileMillis(50), chunked.percentileMillis(0), chunked.percentileMillis(50), loadAverage()));
        log("scale: pod start-up latency for " + startupPods + " pods at 100 pods/s");
        bench.createNamespace("startup");
        SchedulerBench.Throughput startup = bench.run("startup", startupPods, 16, 100, true, index -> SchedulerBench.basicPod(SchedulerBench.POD_NAME_PREFIX + index, "startup"));
        append(String.format(Locale.ROOT, "%nPod start-up latency (create ▶ Running seen on a watch), %d pods created at 100 pods/s (achieved %.0f/s) into that cluster: "
                        + "p50 %.0f ms, p90 %.0f ms, p99 %.0f ms over %d Running pods (upstream SLO: p99 ≤ 5000 ms). Machine load (1 min): %s.%n",
                startupPods, startup.createsPerSecond(), startup.startup().percentileMillis(50), startup.startup().percentileMillis(90),
                startup.startup().percentileMillis(99), startup.startup().count(), loadAverage()));
    }

    private void runPreemption() throws Exception {
        int preemptionNodes = 500;
        Path config = work.resolve("preemption.yaml");
        Files.createDirectories(work);
        Files.writeString(config, "capacity: {cpu: \"4\", memory: 32Gi, pods: \"110\"}\n");
        log("preemption: starting k4j server with " + preemptionNodes + " simulated nodes of 4 CPUs");
        String token = UUID.randomUUID().toString();
        try (K4jServer server = K4jServer.start(work.resolve("preemption"), "--simulated-nodes=" + preemptionNodes, "--cluster-cidr=10.0.0.0/8",
                "--simulated-node-config=" + config, "--token-auth-file=" + H2Load.adminTokenFile(work.resolve("preemption-tokens.csv"), token))) {
            SchedulerBench bench = bench(server, token, work.resolve("preemption"));
            bench.awaitReadyNodes(preemptionNodes, Duration.ofMinutes(10));
            if (runs.contains("basic-500")) {
                // The same pods as SchedulingBasic on a tenth of the nodes: a tenth of the heartbeat writes, which shows
                // how much of the API's write capacity 5,000 simulated nodes take. Its 10m pods leave room for the fill below.
                append(String.format(Locale.ROOT, "%nSchedulingBasic on %d simulated nodes of 4 CPUs (the preemption run's server; load generator: %s):%n%n"
                        + THROUGHPUT_TABLE, preemptionNodes, bench.throughputGenerator(CREATES_IN_FLIGHT)));
                throughputRow(server, bench, "SchedulingBasic (500 nodes)", "basic", basicPods / 2, BASIC_UPSTREAM, BASIC_UPSTREAM_TEXT, SchedulerBench::basicPod);
            }
            if (!runs.contains("preemption")) {
                return;
            }
            bench.client().require("POST", "/apis/scheduling.k8s.io/v1/priorityclasses", SchedulerBench.priorityClass("bench-low", 1));
            bench.client().require("POST", "/apis/scheduling.k8s.io/v1/priorityclasses", SchedulerBench.priorityClass("bench-high", 1000));
            bench.createNamespace("low");
            int lowPods = preemptionNodes * 4;
            SchedulerBench.Throughput low = bench.runThroughput("low", lowPods, CREATES_IN_FLIGHT,
                    (name, namespace) -> SchedulerBench.priorityPod(name, namespace, "bench-low", "900m"));
            bench.createNamespace("high");
            int highPods = preemptionNodes;
            SchedulerBench.Throughput high = bench.runThroughput("high", highPods, CREATES_IN_FLIGHT,
                    (name, namespace) -> SchedulerBench.priorityPod(name, namespace, "bench-high", "900m"));
            append(String.format(Locale.ROOT, "%nPreemption (as upstream's PreemptionBasic: %d nodes of 4 CPUs filled with %d low-priority pods of 900m, %d bound at %.0f/s; "
                            + "then %d high-priority pods of 900m, each needing a victim): %d of %d bound, %.1f pods/s first▶last, %.1f pods/s middle 80%%.%n",
                    preemptionNodes, lowPods, low.bound(), low.middleBindsPerSecond(), highPods, high.bound(), highPods, high.bindsPerSecond(),
                    high.middleBindsPerSecond()));
        }
    }

    /**
     * A bench on {@code server}: JDK clients with the kubeconfig's certificate, and h2load (when this suite has it)
     * authenticated with {@code token}, working in {@code directory}.
     */
    private SchedulerBench bench(K4jServer server, String token, Path directory) {
        List<ClusterClient> clients = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            clients.add(ClusterClient.fromKubeconfig(server.kubeconfig()));
        }
        return new SchedulerBench(clients, h2load.map(executable -> H2Load.create(executable, clients.get(0).server(), token, directory)));
    }

    /** The server's CPU at rest: the last window's, the first window's, the windows measured, and whether it settled. */
    private record Rest(double millisPerSecond, double firstMillisPerSecond, int windows, boolean settled) {}

    /**
     * Measures the server's CPU per second of wall time in windows of {@link #REST_WINDOW} until one from the
     * {@link #MIN_REST_WINDOWS}th on is within {@link #SETTLED_WITHIN} of the one before, with half the cores or more
     * idle and the JIT compiler under {@link #REST_COMPILER_SHARE} of it, or {@link #MAX_REST_WINDOWS} passed: after the
     * nodes turn Ready the server still compiles the heartbeats' paths and catches up (node status, CIDRs, leases) for
     * a minute or more, which is not the load of a cluster at rest.
     */
    private static Rest settledRestCpu(long pid) throws InterruptedException {
        ProcessCpu.Window first = ProcessCpu.during(pid, REST_WINDOW);
        log(String.format(Locale.ROOT, "server CPU at rest, window 1: %s", first));
        ProcessCpu.Window previous = first;
        for (int windows = 2; windows <= MAX_REST_WINDOWS; windows++) {
            ProcessCpu.Window current = ProcessCpu.during(pid, REST_WINDOW);
            log(String.format(Locale.ROOT, "server CPU at rest, window %d: %s", windows, current));
            // While the server still catches up it takes every core, and two such windows agree without being at rest.
            boolean busy = current.millisPerSecond() > 1000.0 * Runtime.getRuntime().availableProcessors() / 2;
            boolean agrees = Math.abs(current.millisPerSecond() - previous.millisPerSecond()) <= SETTLED_WITHIN * previous.millisPerSecond();
            if (windows >= MIN_REST_WINDOWS && !busy && agrees && current.used().compilerShare() < REST_COMPILER_SHARE) {
                return new Rest(current.millisPerSecond(), first.millisPerSecond(), windows, true);
            }
            previous = current;
        }
        return new Rest(previous.millisPerSecond(), first.millisPerSecond(), MAX_REST_WINDOWS, false);
    }

    /**
     * Starts a JFR recording (profile settings) of the server for {@code run}, when {@link #RECORDINGS} is set. It
     * samples by CPU time as well (JDK 25's {@code jdk.CPUTimeSample}): the execution sampler sees few of the samples
     * of virtual threads, which serve the server's requests.
     */
    private static Optional<Path> startRecording(long pid, String run) throws IOException, InterruptedException {
        if (RECORDINGS.isEmpty()) {
            return Optional.empty();
        }
        Files.createDirectories(RECORDINGS.get());
        Path file = RECORDINGS.get().resolve(run + ".jfr").toAbsolutePath();
        log(Commands.jcmd(pid, "JFR.start", "name=" + run, "settings=profile",
                "jdk.CPUTimeSample#enabled=true", "jdk.CPUTimeSample#throttle=10ms", "filename=" + file).strip());
        return Optional.of(file);
    }

    private static void stopRecording(long pid, String run, Path file) throws IOException, InterruptedException {
        log(Commands.jcmd(pid, "JFR.stop", "name=" + run).strip() + " (" + file + ")");
    }

    /** The server's heap use after a full collection, as {@code jcmd GC.heap_info} reports it. */
    private static String heapAfterFullGc(long pid) throws IOException, InterruptedException {
        Commands.jcmd(pid, "GC.run");
        String info = Commands.jcmd(pid, "GC.heap_info");
        return info.lines()
                .filter(line -> line.contains("used"))
                .findFirst()
                .map(String::trim)
                .map(line -> "`" + line + "`")
                .orElse("unknown (jcmd said: " + info.strip() + ")");
    }

    /** The machine's 1-minute load average, as {@code uptime} shows it: the numbers depend on how busy the shared cores were. */
    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException e) {
            return "unknown";
        }
    }

    private void append(String text) throws IOException {
        System.out.print(text);
        Files.writeString(output, text, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    private static void log(String message) {
        System.err.println("bench: " + message);
    }
}
