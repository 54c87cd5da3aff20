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
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Issue 2's benchmark: apiserver create/get/list/watch numbers on both backends, each beside the raw storage's own
 * rate in the same run, plus ready time and idle memory. Appends a dated section to the benchmarks document.
 *
 * <p>Usage: {@code ./k4j bench [--output docs/benchmarks.md] [--backends sqlite,etcd] [--scale 1.0]}; issue 3's scheduler
 * benchmark instead with {@code ./k4j bench --suite scheduler [--nodes 5000] [--pods 10000] [--variant-pods 5000]
 * [--scale-pods 150000] [--startup-pods 3000] [--runs basic,node-affinity,anti-affinity,spread,scale,basic-500,preemption]} (see
 * {@link SchedulerSuite}).
 */
public final class Main {
    private static final int[] CONCURRENCY = {1, 16, 64};

    private Main() {}

    public static void main(String[] arguments) throws Exception {
        Path output = Path.of("docs/benchmarks.md");
        List<String> backends = List.of("sqlite", "etcd");
        double scale = 1.0;
        int watchers = 1_000;
        String suite = "apiserver";
        int nodes = 5_000;
        int basicPods = 10_000;
        int variantPods = 5_000;
        int scalePods = 150_000;
        int startupPods = 3_000;
        Set<String> runs = new LinkedHashSet<>(SchedulerSuite.RUNS);
        for (int i = 0; i < arguments.length; i++) {
            switch (arguments[i]) {
                case "--output" -> output = Path.of(arguments[++i]);
                case "--backends" -> backends = List.of(arguments[++i].split(","));
                case "--scale" -> scale = Double.parseDouble(arguments[++i]);
                case "--watchers" -> watchers = Integer.parseInt(arguments[++i]);
                case "--suite" -> suite = arguments[++i];
                case "--nodes" -> nodes = Integer.parseInt(arguments[++i]);
                case "--pods" -> basicPods = Integer.parseInt(arguments[++i]);
                case "--variant-pods" -> variantPods = Integer.parseInt(arguments[++i]);
                case "--scale-pods" -> scalePods = Integer.parseInt(arguments[++i]);
                case "--startup-pods" -> startupPods = Integer.parseInt(arguments[++i]);
                case "--runs" -> runs = new LinkedHashSet<>(List.of(arguments[++i].split(",")));
                default -> throw new IllegalArgumentException("unknown argument " + arguments[i] + "; use --output FILE, --backends sqlite,etcd, --scale FACTOR, --watchers N, "
                        + "or --suite scheduler with --nodes N, --pods N, --variant-pods N, --scale-pods N, --startup-pods N, --runs " + String.join(",", SchedulerSuite.RUNS));
            }
        }
        if (System.getProperty("k4j.launcher.dir") == null) {
            System.setProperty("k4j.launcher.dir", Path.of("launcher/target").toAbsolutePath().toString());
        }
        Path work = Files.createTempDirectory("k4j-bench");
        String command = "`./k4j bench" + (arguments.length == 0 ? "" : " " + String.join(" ", arguments)) + "`";
        if (suite.equals("scheduler")) {
            ensureDocument(output);
            String header = "\n## Issue 3: scheduler and simulated nodes — run 1 (" + LocalDate.now() + ")\n\n"
                    + "Machine: " + machine() + ". Command: " + command + ". Commit: " + commit() + ".\n";
            new SchedulerSuite(output, work, nodes, basicPods, variantPods, scalePods, startupPods, runs).run(header);
            System.err.println("bench: results appended to " + output);
            return;
        }
        if (!suite.equals("apiserver")) {
            throw new IllegalArgumentException("unknown suite " + suite + "; use apiserver (the default) or scheduler");
        }
        StringBuilder report = new StringBuilder();
        report.append("\n## Issue 2: apiserver and storage (").append(LocalDate.now()).append(")\n\n")
                .append("Machine: ").append(machine()).append(". Command: `./k4j bench").append(arguments.length == 0 ? "" : " " + String.join(" ", arguments)).append("`.\n");
        for (String backend : backends) {
            report.append(runBackend(backend, work.resolve(backend), scale, watchers));
        }
        System.out.print(report);
        ensureDocument(output);
        Files.writeString(output, report.toString(), StandardOpenOption.APPEND);
        System.err.println("bench: results appended to " + output);
    }

    private static String runBackend(String backend, Path directory, double scale, int watchers) throws Exception {
        log("backend " + backend + ": raw storage reference");
        Files.createDirectories(directory);
        StringBuilder section = new StringBuilder("\n### Backend: ").append(backend).append("\n\n");
        int rawCreates = (int) (20_000 * scale);
        EtcdProcess etcd = backend.equals("etcd") ? EtcdProcess.start() : null;
        try {
            List<RawStorageBench.Result> raw = new ArrayList<>();
            try (KeyValueStore store = backend.equals("etcd")
                    ? EtcdKeyValueStore.connect(etcd.endpoint())
                    : SqliteKeyValueStore.open(directory.resolve("raw").resolve("raw.db"))) {
                byte[] value = RawStorageBench.podSizedValue();
                for (int clients : CONCURRENCY) {
                    raw.add(RawStorageBench.creates(store, "/bench/raw-" + clients + "/", clients, clients == 1 ? rawCreates / 10 : rawCreates, value));
                }
            }
            log("backend " + backend + ": starting k4j server");
            String[] extra = etcd == null ? new String[0] : new String[] {"--datastore-endpoint=" + etcd.endpoint()};
            try (K4jServer server = K4jServer.start(directory.resolve("server"), extra)) {
                long idleRss = server.residentSetBytes();
                List<ClusterClient> clients = new ArrayList<>();
                for (int i = 0; i < 16; i++) {
                    clients.add(ClusterClient.fromKubeconfig(server.kubeconfig()));
                }
                ApiServerBench bench = new ApiServerBench(clients);
                section.append("Ready after start: ").append(server.readyAfter().toMillis()).append(" ms (target ≤ 3000). ")
                        .append("Idle RSS: ").append(idleRss / (1024 * 1024)).append(" MiB (target ≤ 400).\n\n")
                        .append("| pod creates | clients | creates/s | p50 ms | p99 ms | raw storage creates/s | ratio |\n")
                        .append("|---|---|---|---|---|---|---|\n");
                for (int index = 0; index < CONCURRENCY.length; index++) {
                    int clientsCount = CONCURRENCY[index];
                    int creates = (int) ((clientsCount == 1 ? 1_000 : 10_000) * scale);
                    String namespace = "create-" + clientsCount;
                    bench.createNamespace(namespace);
                    log("backend " + backend + ": " + creates + " pod creates with " + clientsCount + " clients");
                    RawStorageBench.Result result = bench.createPods(namespace, "pod-", clientsCount, creates);
                    RawStorageBench.Result reference = raw.get(index);
                    section.append(String.format(Locale.ROOT, "| %d | %d | %.0f | %.2f | %.2f | %.0f | %.2f |%n",
                            creates, clientsCount, result.perSecond(), result.p50Millis(), result.p99Millis(),
                            reference.perSecond(), result.perSecond() / reference.perSecond()));
                }
                log("backend " + backend + ": GET latency");
                Latencies gets = bench.getPods("create-16", "pod-", (int) (10_000 * scale), 2_000);
                int listSize = (int) (10_000 * scale);
                log("backend " + backend + ": LIST of " + listSize + " pods");
                bench.createNamespace("list");
                bench.createPods("list", "pod-", 64, listSize);
                Latencies lists = bench.listPods("list", 10);
                log("backend " + backend + ": watch fan-out to " + watchers + " watchers");
                bench.createNamespace("watch");
                Latencies watch = bench.watchFanOut("watch", watchers, 5);
                section.append(String.format(Locale.ROOT, "%nGET pod: p50 %.2f ms, p99 %.2f ms. LIST of %d pods: p50 %.0f ms, best %.0f ms (target ≤ 200). "
                                + "One change to %d watchers: p50 %.1f ms, p99 %.1f ms (target ≤ 100 for 1,000).%n",
                        gets.percentileMillis(50), gets.percentileMillis(99), listSize, lists.percentileMillis(50), lists.percentileMillis(0),
                        watchers, watch.percentileMillis(50), watch.percentileMillis(99)));
            }
        } finally {
            if (etcd != null) {
                etcd.close();
            }
        }
        return section.toString();
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
        return Runtime.getRuntime().availableProcessors() + " cores (" + cpu + "), "
                + Runtime.getRuntime().maxMemory() / (1024 * 1024 * 1024) + " GiB max heap for the load generator, JDK "
                + Runtime.version() + ", " + host;
    }

    private static void log(String message) {
        System.err.println("bench: " + message);
    }
}
