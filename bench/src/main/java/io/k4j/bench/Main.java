package io.k4j.bench;

import io.k4j.e2e.K4jServer;
import io.k4j.storage.KeyValueStore;
import io.k4j.storage.etcd.EtcdKeyValueStore;
import io.k4j.storage.etcd.EtcdProcess;
import io.k4j.storage.sqlite.SqliteKeyValueStore;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.awaitility.core.ConditionTimeoutException;
import java.util.Set;

/**
 * Issue 2's benchmark: apiserver create/get/list/watch numbers on both backends, each beside the raw storage's own
 * rate in the same run, plus ready time and idle memory. Appends a dated section to the benchmarks document.
 *
 * <p>Usage: {@code ./k4j bench [--output docs/benchmarks.md] [--backends sqlite,etcd] [--scale 1.0] [--watchers 1000]
 * [--generator auto|h2load|jdk]}; the create load comes from h2load when it is installed ({@code auto}). Issue 3's
 * scheduler benchmark instead with {@code ./k4j bench --suite scheduler [--nodes 5000] [--pods 10000] [--variant-pods 5000]
 * [--scale-pods 150000] [--startup-pods 3000] [--runs basic,node-affinity,anti-affinity,spread,scale,basic-500,preemption]
 * [--generator auto|h2load|jdk]} (see {@link SchedulerSuite}; its throughput runs create their pods with h2load too); issue 5's cluster
 * DNS benchmark with {@code ./k4j bench --suite dns [--generator auto|dnsperf|jdk]} (see {@link DnsBench}; the load comes from dnsperf
 * when it is installed); issue 4's pod startup
 * benchmark on a real node with {@code ./k4j bench --suite pod-startup [--pods 30] [--single-runs 10] [--server-verbosity 0]} (see
 * {@link PodStartupBench}); issue 5's kube-proxy network programming benchmark with {@code ./k4j bench --suite proxy
 * [--services 1000] [--endpoints-per-service 10] [--changes 100] [--churn-changes 300] [--churn-rate 5] [--min-sync-period-ms 250]} (see {@link ProxyBench}).
 */
public final class Main {
    private static final int[] CONCURRENCY = {1, 16, 64};
    /** The watch fan-out's recorded changes, after its warm-up ones (see ApiServerBench.watchFanOut). */
    private static final int WATCH_CHANGES = 20;
    /** The fan-out's unrecorded changes come in sets of this many, until the JIT settles in both JVMs, or at most this many sets. */
    private static final int WATCH_WARM_UP_SET = 10;
    private static final int WATCH_WARM_UP_SETS = 6;
    /** Closed-loop Java UDP clients of the DNS benchmark without dnsperf: enough to keep two cores busy without queueing without bound. */
    private static final int DNS_CLIENTS = 32;

    private Main() {}

    public static void main(String[] arguments) throws Exception {
        Path output = Path.of("docs/benchmarks.md");
        List<String> backends = List.of("sqlite", "etcd");
        double scale = 1.0;
        int watchers = 1_000;
        String generator = "auto";
        String suite = "apiserver";
        int nodes = 5_000;
        int basicPods = 10_000;
        int variantPods = 5_000;
        int scalePods = 150_000;
        int startupPods = 3_000;
        Set<String> runs = new LinkedHashSet<>(SchedulerSuite.RUNS);
        Integer pods = null;
        int singleRuns = 10;
        int serverVerbosity = 0;
        int services = 1_000;
        int endpointsPerService = 10;
        int changes = 100;
        int churnChanges = 300;
        double churnRate = 5;
        int minSyncPeriodMillis = ProxyBench.DEFAULT_MIN_SYNC_PERIOD_MILLIS;
        for (int i = 0; i < arguments.length; i++) {
            switch (arguments[i]) {
                case "--output" -> output = Path.of(arguments[++i]);
                case "--backends" -> backends = List.of(arguments[++i].split(","));
                case "--scale" -> scale = Double.parseDouble(arguments[++i]);
                case "--watchers" -> watchers = Integer.parseInt(arguments[++i]);
                case "--suite" -> suite = arguments[++i];
                case "--nodes" -> nodes = Integer.parseInt(arguments[++i]);
                case "--pods" -> pods = Integer.parseInt(arguments[++i]);
                case "--single-runs" -> singleRuns = Integer.parseInt(arguments[++i]);
                case "--server-verbosity" -> serverVerbosity = Integer.parseInt(arguments[++i]);
                case "--services" -> services = Integer.parseInt(arguments[++i]);
                case "--endpoints-per-service" -> endpointsPerService = Integer.parseInt(arguments[++i]);
                case "--changes" -> changes = Integer.parseInt(arguments[++i]);
                case "--churn-changes" -> churnChanges = Integer.parseInt(arguments[++i]);
                case "--churn-rate" -> churnRate = Double.parseDouble(arguments[++i]);
                case "--min-sync-period-ms" -> minSyncPeriodMillis = Integer.parseInt(arguments[++i]);
                case "--variant-pods" -> variantPods = Integer.parseInt(arguments[++i]);
                case "--scale-pods" -> scalePods = Integer.parseInt(arguments[++i]);
                case "--startup-pods" -> startupPods = Integer.parseInt(arguments[++i]);
                case "--runs" -> runs = new LinkedHashSet<>(List.of(arguments[++i].split(",")));
                case "--generator" -> generator = arguments[++i];
                default -> throw new IllegalArgumentException("unknown argument " + arguments[i] + "; use --output FILE, --backends sqlite,etcd, --scale FACTOR, --watchers N, --generator auto|h2load|jdk, "
                        + "or --suite scheduler with --nodes N, --pods N, --variant-pods N, --scale-pods N, --startup-pods N, --runs " + String.join(",", SchedulerSuite.RUNS)
                        + ", --generator auto|h2load|jdk, or --suite pod-startup with --pods N, --single-runs N, --server-verbosity N, or --suite proxy with --services N, --endpoints-per-service N, --changes N, "
                        + "--churn-changes N, --churn-rate PER_SECOND, --min-sync-period-ms N, or --suite dns with --generator auto|dnsperf|jdk");
            }
        }
        if (pods != null) {
            basicPods = pods;
        }
        if (System.getProperty("k4j.launcher.dir") == null) {
            System.setProperty("k4j.launcher.dir", Path.of("launcher/target").toAbsolutePath().toString());
        }
        Path work = Files.createTempDirectory("k4j-bench");
        try {
            String command = "`./k4j bench" + (arguments.length == 0 ? "" : " " + String.join(" ", arguments)) + "`";
            if (suite.equals("scheduler")) {
                // The server as ./k4j server starts it, with the JVM's default heap: 5,000 nodes and 10,000 pods in 1 GiB
                // spent an eighth of the run in collection pauses (docs/benchmarks.md, session 10).
                if (System.getProperty("k4j.server.heap") == null) {
                    System.setProperty("k4j.server.heap", K4jServer.JVM_DEFAULT_HEAP);
                }
                ensureDocument(output);
                // Creating pods is the load the scheduler's throughput is measured under, so it should cost the shared
                // cores as little as possible: h2load when installed, as the apiserver suite.
                Optional<Path> h2load = loadGenerator(generator);
                String header = "\n## Issue 3: scheduler and simulated nodes — run 1 (" + LocalDate.now() + ")\n\n"
                        + "Machine: " + machine() + ". Command: " + command + ". Commit: " + commit() + ".\n";
                new SchedulerSuite(output, work, nodes, basicPods, variantPods, scalePods, startupPods, runs, h2load).run(header);
                System.err.println("bench: results appended to " + output);
                return;
            }
            if (suite.equals("dns")) {
                Optional<Path> dnsperf = generator(generator, "dnsperf", "dnsperf",
                        "loading the DNS server with Java clients in its own JVM, which cost as much CPU as the server");
                String section = "\n## Issue 5: cluster DNS (" + LocalDate.now() + ")\n\nMachine: "
                        + machine("the DNS server in the bench's JVM (" + Runtime.getRuntime().maxMemory() / (1024 * 1024 * 1024) + " GiB max heap)") + ". Command: " + command + ". Commit: " + commit() + ".\n"
                        + DnsBench.run(dnsperf, DNS_CLIENTS, Duration.ofSeconds(5), Duration.ofSeconds(10), work);
                appendSection(output, section);
                return;
            }
            if (suite.equals("pod-startup")) {
                String header = "\n## Issue 4: pod startup on a real node (" + LocalDate.now() + ")\n\nMachine: " + machine() + ". Command: " + command + ". Commit: " + commit()
                        + ". Load average at the start: " + Commands.loadAverage() + ".\n";
                String section = header + PodStartupBench.run(work, pods == null ? 30 : pods, singleRuns, serverVerbosity);
                appendSection(output, section);
                return;
            }
            if (suite.equals("proxy")) {
                String header = "\n## Issue 5: kube-proxy network programming (" + LocalDate.now() + ")\n\nMachine: " + machine() + ". Command: " + command + ". Commit: " + commit()
                        + ".\n";
                String section = header + ProxyBench.run(work, services, endpointsPerService, changes, churnChanges, churnRate,
                        minSyncPeriodMillis);
                appendSection(output, section);
                return;
            }
            if (!suite.equals("apiserver")) {
                throw new IllegalArgumentException("unknown suite " + suite + "; use apiserver (the default), scheduler, dns, pod-startup or proxy");
            }
            Optional<Path> h2load = loadGenerator(generator);
            // The server keeps every created pod in its informers' caches (controller manager, scheduler) besides the
            // watch cache: tens of thousands of pods outgrow the 1 GiB the tests give it.
            if (System.getProperty("k4j.server.heap") == null) {
                System.setProperty("k4j.server.heap", "3g");
            }
            StringBuilder report = new StringBuilder();
            report.append("\n## Issue 2: apiserver and storage (").append(LocalDate.now()).append(")\n\n")
                    .append("Machine: ").append(machine()).append(". Command: `./k4j bench").append(arguments.length == 0 ? "" : " " + String.join(" ", arguments))
                    .append("`. Commit: ").append(commit()).append(".\n");
            for (String backend : backends) {
                report.append(runBackend(backend, work.resolve(backend), scale, watchers, h2load));
            }
            appendSection(output, report.toString());
        } finally {
            WorkDirectory.remove(work);
        }
    }

    /** The h2load executable the {@code --generator} asks for: none for {@code jdk}, the installed one for {@code auto} or {@code h2load}. */
    private static Optional<Path> loadGenerator(String generator) {
        return generator(generator, "h2load", "nghttp2-client", "creating pods with the JDK client, which costs more CPU than the server it measures");
    }

    /**
     * The load generator {@code tool} the {@code --generator} asks for: none for {@code jdk}, the installed one for
     * {@code auto} or the tool's name (which must be installed); without it, {@code fallback} says what is used instead.
     */
    private static Optional<Path> generator(String requested, String tool, String debianPackage, String fallback) {
        Optional<Path> found = switch (requested) {
            case "jdk" -> Optional.empty();
            case "auto" -> Commands.onPath(tool);
            default -> {
                if (!requested.equals(tool)) {
                    throw new IllegalArgumentException("unknown generator " + requested + "; use auto, " + tool + " or jdk");
                }
                yield Optional.of(Commands.onPath(tool).orElseThrow(() -> new IllegalStateException(tool + " is not installed (Debian package " + debianPackage + ")")));
            }
        };
        if (found.isEmpty() && !requested.equals("jdk")) {
            log(tool + " not found (Debian package " + debianPackage + "): " + fallback);
        }
        return found;
    }

    private static String runBackend(String backend, Path directory, double scale, int watchers, Optional<Path> h2load) throws Exception {
        log("backend " + backend + ": raw storage reference");
        Files.createDirectories(directory);
        StringBuilder section = new StringBuilder("\n### Backend: ").append(backend).append("\n\n");
        int rawCreates = (int) (20_000 * scale);
        EtcdProcess etcd = backend.equals("etcd") ? EtcdProcess.start() : null;
        // Open until the end: the reference is measured again beside each of the server's rows.
        KeyValueStore rawStore = null;
        try {
            double[] rawFresh = new double[CONCURRENCY.length];
            double[] rawRequestSized = new double[CONCURRENCY.length];
            byte[] stored = RawStorageBench.storedPodValue();
            byte[] requestSized = RawStorageBench.requestSizedValue();
            rawStore = backend.equals("etcd")
                    ? EtcdKeyValueStore.connect(etcd.endpoint())
                    : SqliteKeyValueStore.open(directory.resolve("raw").resolve("raw.db"));
            // The reference runs in this JVM, which compiles the storage client's paths too: warmed up as the server is.
            log("backend " + backend + ": raw storage warm-up, " + rawCreates + " creates of each value size");
            RawStorageBench.creates(rawStore, "/bench/raw-warm-up/", 64, rawCreates, stored);
            RawStorageBench.creates(rawStore, "/bench/raw-warm-up-request/", 64, rawCreates, requestSized);
            for (int index = 0; index < CONCURRENCY.length; index++) {
                int clients = CONCURRENCY[index];
                int count = createsAt(clients, rawCreates);
                // Stored, request-sized, request-sized, stored: a drift of the machine or of this JVM's compiler
                // over the four runs weighs on both sizes alike.
                double storedFirst = RawStorageBench.creates(rawStore, "/bench/raw-" + clients + "-a/", clients, count, stored).perSecond();
                double requestFirst = RawStorageBench.creates(rawStore, "/bench/raw-request-" + clients + "-a/", clients, count, requestSized).perSecond();
                double requestSecond = RawStorageBench.creates(rawStore, "/bench/raw-request-" + clients + "-b/", clients, count, requestSized).perSecond();
                double storedSecond = RawStorageBench.creates(rawStore, "/bench/raw-" + clients + "-b/", clients, count, stored).perSecond();
                rawFresh[index] = (storedFirst + storedSecond) / 2;
                rawRequestSized[index] = (requestFirst + requestSecond) / 2;
            }
            // As an operator would before handing the storage to a server: the reference's history goes, so that the server
            // starts on storage that holds nothing of the reference's (an etcd keeps every revision until compacted).
            rawStore.compact(rawStore.currentRevision());
            log("backend " + backend + ": starting k4j server");
            String token = UUID.randomUUID().toString();
            Path tokens = H2Load.adminTokenFile(directory.resolve("bench-tokens.csv"), token);
            List<String> extra = new ArrayList<>(List.of("--token-auth-file", tokens.toString()));
            if (etcd != null) {
                extra.add("--datastore-endpoint=" + etcd.endpoint());
            }
            StartedServer started = startServer(directory, extra);
            try (K4jServer server = started.server()) {
                long idleRss = server.residentSetBytes();
                ApiServerBench bench = ApiServerBench.connect(server.kubeconfig(), 16);
                Optional<H2Load> generator = h2load.map(executable -> H2Load.create(executable, bench.client().server(), token, directory));
                Creates creates = generator.<Creates>map(h2 -> new H2LoadCreates(h2, server.pid()))
                        .orElseGet(() -> new JdkClientCreates(bench, server.pid()));
                if (started.failedStarts() > 0) {
                    section.append("(The first ").append(started.failedStarts()).append(" start(s) did not answer /readyz within the 60 s limit on the loaded machine; ")
                            .append("the numbers are from the next start.) ");
                }
                section.append("Ready after start (launching the JVM ▶ the admin kubeconfig written, the server's last step before /readyz passes): ")
                        .append(server.readyAfter().toMillis()).append(" ms (target ≤ 3000). ")
                        .append("Idle RSS: ").append(idleRss / (1024 * 1024)).append(" MiB (target ≤ 400). ")
                        .append("Load generator: ").append(creates.description()).append(".\n\n");
                // The server's JIT compiles the create path over the first tens of thousands of requests; measured runs
                // start from a warm server, as a long-running apiserver is. Warm-up rounds create and delete pods (so the
                // store does not grow) until the JIT's share of a round's server CPU falls below WARM_JIT_SHARE.
                WarmUp warmUp = warmUp(bench, creates, (int) (10_000 * scale), backend);
                section.append(warmUp.description()).append("\n\n");
                section.append("| pod creates | clients | creates/s | p50 ms | p99 ms | server CPU ms/create | of which JIT / GC | generator CPU ms/create | raw storage creates/s | ratio |\n")
                        .append("|---|---|---|---|---|---|---|---|---|---|\n");
                List<CreateResult> measured = new ArrayList<>();
                StringJoiner serverBesideRaw = new StringJoiner(" / ");
                for (int index = 0; index < CONCURRENCY.length; index++) {
                    int clientsCount = CONCURRENCY[index];
                    int count = createsAt(clientsCount, (int) (20_000 * scale));
                    String namespace = "create-" + clientsCount;
                    bench.createNamespace(namespace);
                    // The reference once before and once after the row, on the storage as the row finds it: etcd's
                    // cost per write grows with the history the warm-up left (docs/benchmarks.md, session 36).
                    int rawCount = createsAt(clientsCount, rawCreates);
                    RawBeside rawBefore = RawBeside.run(rawStore, "/bench/raw-beside-" + clientsCount + "-a/", clientsCount, rawCount, stored, server.pid());
                    log("backend " + backend + ": " + count + " pod creates with " + clientsCount + " clients");
                    CreateResult result = creates.run(namespace, clientsCount, count);
                    RawBeside rawAfter = RawBeside.run(rawStore, "/bench/raw-beside-" + clientsCount + "-b/", clientsCount, rawCount, stored, server.pid());
                    double raw = (rawBefore.perSecond() + rawAfter.perSecond()) / 2;
                    serverBesideRaw.add(String.format(Locale.ROOT, "%.0f and %.0f", rawBefore.serverCpuMillisPerSecond(), rawAfter.serverCpuMillisPerSecond()));
                    measured.add(result);
                    section.append(String.format(Locale.ROOT, "| %d | %d | %.0f | %.2f | %.2f | %.3f | %s | %.3f | %.0f | %.2f |%n",
                            count, clientsCount, result.perSecond(), result.p50Millis(), result.p99Millis(), result.serverCpuMillis(),
                            result.serverCpu().shares(" / "), result.generatorCpuMillis(), raw, result.perSecond() / raw));
                }
                section.append(String.format(Locale.ROOT, "%nThe raw storage stores what the server stores for the created pod (%d bytes of JSON). Its rate in the "
                                + "table is the mean of a run just before and one just after the row, on the same storage, each once the server used under "
                                + "%.0f ms of CPU per second; it used %s ms per second during them. Before the server started, on the fresh storage, it was "
                                + "%s creates/s at %s clients (ratios %s), and storing the request body's %d bytes instead %s (ratios %s); each the mean "
                                + "of two runs, in the order stored, request-sized, request-sized, stored.%n",
                        stored.length, RawBeside.QUIET_SERVER_MILLIS_PER_SECOND, serverBesideRaw, rates(rawFresh), concurrencies(), ratios(measured, rawFresh), requestSized.length,
                        rates(rawRequestSized), ratios(measured, rawRequestSized)));
                if (creates instanceof H2LoadCreates) {
                    // What the generator costs shows beside the same single-client run driven by the JDK client.
                    int count = (int) (2_000 * scale);
                    bench.createNamespace("create-1-jdk");
                    log("backend " + backend + ": " + count + " pod creates with 1 client of the JDK HttpClient, for comparison");
                    CreateResult jdk = new JdkClientCreates(bench, server.pid()).run("create-1-jdk", 1, count);
                    section.append(String.format(Locale.ROOT, "%nThe same %d creates with 1 client driven by the JDK HttpClient instead of h2load: %.0f/s, p50 %.2f ms, "
                                    + "p99 %.2f ms, server CPU %.3f ms/create, generator CPU %.3f ms/create.%n",
                            count, jdk.perSecond(), jdk.p50Millis(), jdk.p99Millis(), jdk.serverCpuMillis(), jdk.generatorCpuMillis()));
                }
                log("backend " + backend + ": GET latency");
                Latencies gets = bench.getPods("create-16", bench.podNames("create-16"), 2_000);
                int listSize = (int) (10_000 * scale);
                log("backend " + backend + ": LIST of " + listSize + " pods");
                bench.createNamespace("list");
                creates.run("list", 64, listSize);
                Latencies lists = generator.map(h2 -> bench.listPods(h2, "list", 10, listSize)).orElseGet(() -> bench.listPods("list", 10, listSize));
                WatchStreams http2 = bench.http2WatchStreams(16);
                String http2Result = watchFanOut(bench, "watch", http2, watchers, backend, server.pid());
                WatchStreams jdk = bench.jdkWatchStreams();
                String jdkResult = watchFanOut(bench, "watch-jdk", jdk, watchers, backend, server.pid());
                String watchResult = String.format(Locale.ROOT, "One change to %d watchers (%d recorded changes, after unrecorded ones in sets of %d until a set "
                                + "in which the JIT took under %.0f %% of both the server's and the client's CPU, at most %d sets), read by %s: %s "
                                + "(target ≤ 100 for 1,000); read by %s, whose CPU per event is of the order of the server's: %s.",
                        watchers, WATCH_CHANGES, WATCH_WARM_UP_SET, 100 * WARM_JIT_SHARE, WATCH_WARM_UP_SETS, http2.description(), http2Result,
                        jdk.description(), jdkResult);
                section.append(String.format(Locale.ROOT, "%nGET pod: p50 %.2f ms, p99 %.2f ms. LIST of %d pods (request to the last byte of the response, read by %s): p50 %.0f ms, best %.0f ms (target ≤ 200).%n%n%s%n",
                        gets.percentileMillis(50), gets.percentileMillis(99), listSize, generator.isPresent() ? "h2load" : "the JDK client", lists.percentileMillis(50), lists.percentileMillis(0), watchResult));
            }
        } finally {
            if (rawStore != null) {
                rawStore.close();
            }
            if (etcd != null) {
                etcd.close();
            }
        }
        return section.toString();
    }

    /** A reference run beside one of the server's rows, and the CPU the server used meanwhile. */
    private record RawBeside(double perSecond, double serverCpuMillisPerSecond) {
        /** The server's CPU per second under which a reference run starts: it must not compete with the server's leftovers. */
        private static final double QUIET_SERVER_MILLIS_PER_SECOND = 50;
        private static final Duration QUIET_WINDOW = Duration.ofMillis(500);
        private static final int QUIET_WINDOWS = 120;

        static RawBeside run(KeyValueStore store, String prefix, int clients, int count, byte[] value, long serverPid) throws Exception {
            // After a row or the warm-up's deletes the server still works for a while (its controllers, its collector).
            double serverCpu = ProcessCpu.during(serverPid, QUIET_WINDOW).millisPerSecond();
            for (int window = 1; serverCpu >= QUIET_SERVER_MILLIS_PER_SECOND && window < QUIET_WINDOWS; window++) {
                serverCpu = ProcessCpu.during(serverPid, QUIET_WINDOW).millisPerSecond();
            }
            if (serverCpu >= QUIET_SERVER_MILLIS_PER_SECOND) {
                log(String.format(Locale.ROOT, "the server still used %.0f ms of CPU per second after %d s; measuring the reference beside it anyway",
                        serverCpu, QUIET_WINDOWS * QUIET_WINDOW.toMillis() / 1000));
            }
            Duration serverBefore = ProcessCpu.total(serverPid);
            long start = System.nanoTime();
            double perSecond = RawStorageBench.creates(store, prefix, clients, count, value).perSecond();
            double seconds = (System.nanoTime() - start) / 1e9;
            return new RawBeside(perSecond, ProcessCpu.total(serverPid).minus(serverBefore).toNanos() / 1e6 / seconds);
        }
    }

    private static String concurrencies() {
        return Arrays.stream(CONCURRENCY).mapToObj(String::valueOf).collect(Collectors.joining(" / "));
    }

    private static String rates(double[] perSecond) {
        return Arrays.stream(perSecond).mapToObj(rate -> String.format(Locale.ROOT, "%.0f", rate)).collect(Collectors.joining(" / "));
    }

    private static String ratios(List<CreateResult> measured, double[] reference) {
        return IntStream.range(0, reference.length)
                .mapToObj(index -> String.format(Locale.ROOT, "%.2f", measured.get(index).perSecond() / reference[index]))
                .collect(Collectors.joining(" / "));
    }

    /**
     * The latencies of one change delivered to {@code watchers} watches on {@code streams}, in a new namespace; a
     * failure is reported in their place, as the run's other numbers still stand.
     */
    private static String watchFanOut(ApiServerBench bench, String namespace, WatchStreams streams, int watchers, String backend, long serverPid) {
        log("backend " + backend + ": watch fan-out to " + watchers + " watchers over " + streams.description());
        bench.createNamespace(namespace);
        JitSettling jit = new JitSettling(serverPid, backend);
        ApiServerBench.FanOutWarmUp warmUp = new ApiServerBench.FanOutWarmUp(WATCH_WARM_UP_SET, WATCH_WARM_UP_SETS, jit::startSet, jit::settled);
        try {
            ApiServerBench.FanOut fanOut = bench.watchFanOut(streams, namespace, watchers, warmUp, WATCH_CHANGES);
            Latencies watch = fanOut.latencies();
            return String.format(Locale.ROOT, "p50 %.1f ms, p99 %.1f ms (after %d warm-up changes)", watch.percentileMillis(50), watch.percentileMillis(99),
                    fanOut.warmUpChanges());
        } catch (Exception e) {
            log("watch fan-out failed: " + e.getMessage());
            return "not measured (" + e.getMessage() + ")";
        }
    }

    /** Whether the JIT took under {@link #WARM_JIT_SHARE} of both the server's and this process's CPU since {@link #startSet}. */
    private static final class JitSettling {
        private final long serverPid;
        private final String backend;
        private ProcessCpu serverAtStart;
        private ProcessCpu clientAtStart;

        JitSettling(long serverPid, String backend) {
            this.serverPid = serverPid;
            this.backend = backend;
        }

        void startSet() {
            serverAtStart = ProcessCpu.of(serverPid);
            clientAtStart = ProcessCpu.of(ProcessHandle.current().pid());
        }

        boolean settled() {
            ProcessCpu server = ProcessCpu.of(serverPid).minus(serverAtStart);
            ProcessCpu client = ProcessCpu.of(ProcessHandle.current().pid()).minus(clientAtStart);
            log(String.format(Locale.ROOT, "backend %s: fan-out warm-up set: %s of the server's CPU, %s of the client's", backend, server.shares(), client.shares()));
            return server.compilerShare() < WARM_JIT_SHARE && client.compilerShare() < WARM_JIT_SHARE;
        }
    }

    private record StartedServer(K4jServer server, int failedStarts) {}

    /**
     * Starts the server, again in a fresh directory when a start does not become ready in time (on a machine other
     * work keeps busy); the process of a failed start, a child of this one, is stopped first.
     */
    private static StartedServer startServer(Path directory, List<String> extra) {
        for (int attempt = 0; ; attempt++) {
            Path serverDirectory = directory.resolve(attempt == 0 ? "server" : "server-" + attempt);
            try {
                return new StartedServer(K4jServer.start(serverDirectory, extra.toArray(String[]::new)), attempt);
            } catch (ConditionTimeoutException e) {
                if (attempt >= 2) {
                    throw e;
                }
                log("the server in " + serverDirectory + " did not become ready in time; stopping it and starting again");
                ProcessHandle.current().children()
                        .filter(child -> child.info().commandLine().orElse("").contains(serverDirectory.toString()))
                        .forEach(ProcessHandle::destroy);
            }
        }
    }

    /** How the server was warmed up before the measured creates. */
    private record WarmUp(int rounds, int createsPerRound, ProcessCpu lastRound, double mostCompiling) {
        String description() {
            return String.format(Locale.ROOT, "Warm-up: %d round(s) of pod creates, each in a new namespace, %s, followed by deleting them; in the "
                    + "last round the server's JIT took %.0f %% of its CPU, and at most %.0f %% of one concurrency's (rounds stop when it "
                    + "takes under %.0f %% at each, or after %d).",
                    rounds, warmUpMix(createsPerRound), 100 * lastRound.compilerShare(), 100 * mostCompiling, 100 * WARM_UP_JIT_SHARE, WARM_UP_ROUNDS);
        }
    }

    /** The JIT's share of a fan-out warm-up set's CPU under which server and client count as warm. */
    private static final double WARM_JIT_SHARE = 0.10;
    /**
     * The JIT's share of a create warm-up round's server CPU under which the server counts as warm. On two cores the
     * JVM has one C2 thread, and its backlog of the create paths lasts ten or more rounds; at 10 % it was still compiling
     * through the measured rows (a third of the 1- and 16-client rows' CPU).
     */
    private static final double WARM_UP_JIT_SHARE = 0.05;
    private static final int WARM_UP_ROUNDS = 16;

    /** How many of a run's {@code creates} one concurrency makes: one client, a tenth, as it is the slowest. */
    private static int createsAt(int clients, int creates) {
        return clients == 1 ? creates / 10 : creates;
    }

    private static String warmUpMix(int createsPerRound) {
        StringJoiner mix = new StringJoiner(", ");
        for (int clients : CONCURRENCY) {
            mix.add(createsAt(clients, createsPerRound) + " at " + clients + (clients == 1 ? " client" : " clients"));
        }
        return mix.toString();
    }

    private static WarmUp warmUp(ApiServerBench bench, Creates creates, int createsPerRound, String backend) throws Exception {
        for (int round = 1; ; round++) {
            log("backend " + backend + ": warm-up round " + round + ", " + warmUpMix(createsPerRound) + " pod creates, then deletes");
            // A new namespace brings creates of other kinds (its service account, its root CA ConfigMap), which make the
            // JIT drop create-path code it had specialised to pods; each measured row starts in a new one, so each round does.
            String namespace = "warm-up-" + round;
            bench.createNamespace(namespace);
            ProcessCpu roundCpu = new ProcessCpu(Duration.ZERO, Duration.ZERO, Duration.ZERO);
            double mostCompiling = 0;
            // Every measured concurrency, in the measured rows' proportions: one client takes paths that many do not (a
            // commit group of one, a connection that goes idle between requests), which a server warmed at 64 clients
            // only compiles, or recompiles code whose untaken branches they take, in the first row.
            for (int clients : CONCURRENCY) {
                ProcessCpu runCpu = creates.run(namespace, clients, createsAt(clients, createsPerRound)).serverCpu();
                roundCpu = roundCpu.plus(runCpu);
                mostCompiling = Math.max(mostCompiling, runCpu.compilerShare());
            }
            bench.deleteAllPods(namespace);
            log(String.format(Locale.ROOT, "backend %s: warm-up round %d: %s of the server's CPU, JIT at most %.0f %% of a run's",
                    backend, round, roundCpu.shares(), 100 * mostCompiling));
            if (mostCompiling < WARM_UP_JIT_SHARE || round == WARM_UP_ROUNDS) {
                return new WarmUp(round, createsPerRound, roundCpu, mostCompiling);
            }
        }
    }

    /**
     * A create run's numbers: rate and latencies as the generator saw them, and what the server (with the part its JIT
     * and collector took) and the generator spent.
     */
    record CreateResult(int count, double perSecond, double p50Millis, double p99Millis, ProcessCpu serverCpu, Duration generatorCpu) {
        double serverCpuMillis() {
            return serverCpu.total().toNanos() / 1e6 / count;
        }

        double generatorCpuMillis() {
            return generatorCpu.toNanos() / 1e6 / count;
        }
    }

    /** Creates pods with some load generator. */
    interface Creates {
        String description();

        CreateResult run(String namespace, int clients, int count) throws Exception;
    }

    /** h2load: {@code clients} requests in flight, multiplexed over at most 4 connections. */
    record H2LoadCreates(H2Load h2load, long serverPid) implements Creates {
        @Override
        public String description() {
            return "h2load (nghttp2) over HTTP/2+TLS, one pre-built body per run, names generated by the server (generateName), "
                    + "clients = requests in flight over up to 4 connections";
        }

        @Override
        public CreateResult run(String namespace, int clients, int count) {
            int connections = Math.min(clients, 4);
            ProcessCpu serverBefore = ProcessCpu.of(serverPid);
            H2Load.Run run = h2load.post("/api/v1/namespaces/" + namespace + "/pods", PodTemplates.generatedPod("pod-", namespace), count, connections, clients / connections);
            ProcessCpu server = ProcessCpu.of(serverPid).minus(serverBefore);
            if (run.succeeded() != count) {
                throw new IllegalStateException("only " + run.succeeded() + " of " + count + " creates succeeded");
            }
            return new CreateResult(count, run.perSecond(), run.latencies().percentileMillis(50), run.latencies().percentileMillis(99), server, run.generatorCpu());
        }
    }

    /** The JDK's HTTP/2 client in this process, one virtual thread per client (when h2load is not installed). */
    private record JdkClientCreates(ApiServerBench bench, long serverPid) implements Creates {
        @Override
        public String description() {
            return "the JDK HttpClient in the bench process (install nghttp2-client for h2load, a cheaper generator)";
        }

        @Override
        public CreateResult run(String namespace, int clients, int count) throws Exception {
            ProcessCpu serverBefore = ProcessCpu.of(serverPid);
            Duration generatorBefore = ProcessCpu.total(ProcessHandle.current().pid());
            RawStorageBench.Result result = bench.createPods(namespace, "pod-", clients, count);
            ProcessCpu server = ProcessCpu.of(serverPid).minus(serverBefore);
            Duration generator = ProcessCpu.total(ProcessHandle.current().pid()).minus(generatorBefore);
            return new CreateResult(count, result.perSecond(), result.p50Millis(), result.p99Millis(), server, generator);
        }
    }

    /** Prints a suite's section and appends it to the results document. */
    private static void appendSection(Path output, String section) throws IOException {
        System.out.print(section);
        ensureDocument(output);
        Files.writeString(output, section, StandardOpenOption.APPEND);
        System.err.println("bench: results appended to " + output);
    }

    private static void ensureDocument(Path output) throws IOException {
        Files.createDirectories(output.toAbsolutePath().getParent());
        if (!Files.exists(output)) {
            Files.writeString(output, "# k4j benchmarks\n\nEvery number is measured beside a reference in the same run (ratios matter; machines are noisy).\n");
        }
    }

    /** The commit the benchmark runs from, with a mark when the worktree has changes. */
    private static String commit() {
        try {
            Process process = new ProcessBuilder("git", "describe", "--always", "--dirty").redirectErrorStream(true).start();
            String text = new String(process.getInputStream().readAllBytes()).strip();
            return process.waitFor() == 0 ? text : "unknown";
        } catch (IOException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    private static String machine() {
        return machine(Runtime.getRuntime().maxMemory() / (1024 * 1024 * 1024) + " GiB max heap for the load generator, "
                + serverHeap() + " for the server");
    }

    /** The server's heap limit as the reports name it. */
    static String serverHeap() {
        String heap = System.getProperty("k4j.server.heap", "1g");
        return heap.equals(K4jServer.JVM_DEFAULT_HEAP) ? "the JVM's default heap (a quarter of the memory, as ./k4j server)" : heap;
    }

    /** @param heaps what runs in which heap, e.g. the server's and the load generator's */
    private static String machine(String heaps) {
        String cpu = "unknown CPU";
        try {
            cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                    .filter(line -> line.startsWith("model name"))
                    .findFirst()
                    .map(line -> line.substring(line.indexOf(':') + 1).trim())
                    .orElse(cpu);
        } catch (IOException ignored) {
            // Not Linux: the CPU stays unknown.
        }
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = "unknown host";
        }
        return Runtime.getRuntime().availableProcessors() + " cores (" + cpu + "), " + heaps + ", JDK " + Runtime.version() + ", " + host;
    }

    private static void log(String message) {
        System.err.println("bench: " + message);
    }
}
