package io.k4j.bench;

import io.k4j.e2e.K4jServer;
import io.k4j.storage.etcd.EtcdProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * A narrow copy of the apiserver suite's LIST and watch fan-out measurements, for comparing a change quickly: one
 * server on the embedded store (on a real etcd with {@code --etcd}), {@code --preload} pods created first (the full suite has ~70,000 before these
 * measurements), a LIST of {@code --list} pods repeated, then the watch fan-out repeated {@code --rounds} times.
 * Prints one line per measurement; appends nothing. Usage: {@code java -cp bench/target/k4j-bench.jar:bench/target/lib/*
 * io.k4j.bench.WatchListProbe [--preload N] [--list N] [--watchers N] [--rounds N] [--lists N] [--jdk-client] [--etcd]}
 * (the fan-out's watches over the JDK HttpClient instead of Jetty's HTTP/2 client); with
 * {@code -Dprobe.jfr=FILE} the server records a JFR profile (settings=profile) over the LISTs and fan-outs. Later
 * fan-out rounds share the server with the ended watches of earlier ones until the server notices them closed.
 */
public final class WatchListProbe {
    private static final int PRELOAD_ROUND = 20_000;

    private WatchListProbe() {}

    public static void main(String[] arguments) throws Exception {
        int preload = 0;
        int listSize = 10_000;
        int watchers = 1_000;
        int rounds = 3;
        int listRepetitions = 10;
        boolean jdkClient = false;
        boolean etcd = false;
        for (int i = 0; i < arguments.length; i++) {
            switch (arguments[i]) {
                case "--preload" -> preload = Integer.parseInt(arguments[++i]);
                case "--list" -> listSize = Integer.parseInt(arguments[++i]);
                case "--watchers" -> watchers = Integer.parseInt(arguments[++i]);
                case "--rounds" -> rounds = Integer.parseInt(arguments[++i]);
                case "--lists" -> listRepetitions = Integer.parseInt(arguments[++i]);
                case "--jdk-client" -> jdkClient = true;
                case "--etcd" -> etcd = true;
                default -> throw new IllegalArgumentException("unknown argument " + arguments[i]);
            }
        }
        if (System.getProperty("k4j.launcher.dir") == null) {
            System.setProperty("k4j.launcher.dir", Path.of("launcher/target").toAbsolutePath().toString());
        }
        if (System.getProperty("k4j.server.heap") == null) {
            System.setProperty("k4j.server.heap", "3g");
        }
        Path work = Files.createTempDirectory("k4j-probe");
        try {
            String token = UUID.randomUUID().toString();
            Path tokens = H2Load.adminTokenFile(work.resolve("bench-tokens.csv"), token);
            Path h2load = Path.of(System.getProperty("probe.h2load", "/usr/bin/h2load"));
            if (!Files.isExecutable(h2load)) {
                throw new IllegalStateException(h2load + " is missing: install nghttp2-client (the probe creates its pods with h2load)");
            }
            List<String> serverArguments = new ArrayList<>(List.of("--token-auth-file", tokens.toString()));
            try (EtcdProcess etcdProcess = etcd ? EtcdProcess.start() : null) {
                if (etcdProcess != null) {
                    serverArguments.add("--datastore-endpoint=" + etcdProcess.endpoint());
                }
                probe(work, token, h2load, serverArguments, preload, listSize, watchers, rounds, listRepetitions, jdkClient);
            }
        } finally {
            WorkDirectory.remove(work);
        }
    }

    private static void probe(Path work, String token, Path h2load, List<String> serverArguments, int preload, int listSize, int watchers,
            int rounds, int listRepetitions, boolean jdkClient) throws Exception {
        try (K4jServer server = K4jServer.start(work.resolve("server"), serverArguments.toArray(String[]::new))) {
            System.out.println("server pid " + server.pid() + " data " + work);
            ApiServerBench bench = ApiServerBench.connect(server.kubeconfig(), 16);
            H2Load generator = H2Load.create(h2load, bench.client().server(), token, work);
            if (preload > 0) {
                // In rounds of 20,000 at 64 in flight, each printed: the rate and the server's CPU per create of a
                // warming server, for comparing builds on the create path as well.
                bench.createNamespace("warm-up");
                Main.H2LoadCreates creates = new Main.H2LoadCreates(generator, server.pid());
                for (int created = 0, round = 0; created < preload; created += PRELOAD_ROUND, round++) {
                    Main.CreateResult result = creates.run("warm-up", 64, Math.min(PRELOAD_ROUND, preload - created));
                    System.out.printf(Locale.ROOT, "preload round %d: %d creates, %.0f/s, server CPU %.3f ms/create%n", round, result.count(), result.perSecond(),
                            result.serverCpuMillis());
                }
            }
            bench.createNamespace("list");
            generator.post("/api/v1/namespaces/list/pods", PodTemplates.generatedPod("pod-", "list"), listSize, 4, 16);
            String jfr = System.getProperty("probe.jfr");
            if (jfr != null) {
                new ProcessBuilder("jcmd", Long.toString(server.pid()), "JFR.start", "name=probe", "settings=profile", "filename=" + jfr).inheritIO().start().waitFor();
            }
            Latencies lists = bench.listPods(generator, "list", listRepetitions, listSize);
            System.out.printf(Locale.ROOT, "LIST of %d pods: p50 %.1f ms, best %.1f ms, worst %.1f ms%n", listSize,
                    lists.percentileMillis(50), lists.percentileMillis(0), lists.percentileMillis(100));
            for (int round = 0; round < rounds; round++) {
                String namespace = "watch-" + round;
                bench.createNamespace(namespace);
                long started = System.nanoTime();
                Duration clientCpu = ProcessCpu.total(ProcessHandle.current().pid());
                Duration serverCpu = ProcessCpu.total(server.pid());
                WatchStreams streams = jdkClient ? bench.jdkWatchStreams() : bench.http2WatchStreams(16);
                String client = streams.description();
                Latencies watch = bench.watchFanOut(streams, namespace, watchers, ApiServerBench.FanOutWarmUp.fixed(3), 20).latencies();
                System.out.printf(Locale.ROOT, "watch fan-out %d to %d watchers (%s): p50 %.1f ms, p99 %.1f ms, max %.1f ms; %.1f s, CPU client %.1f s, server %.1f s%n",
                        round, watchers, client, watch.percentileMillis(50), watch.percentileMillis(99), watch.percentileMillis(100), (System.nanoTime() - started) / 1e9,
                        ProcessCpu.total(ProcessHandle.current().pid()).minus(clientCpu).toMillis() / 1e3, ProcessCpu.total(server.pid()).minus(serverCpu).toMillis() / 1e3);
            }
            if (jfr != null) {
                new ProcessBuilder("jcmd", Long.toString(server.pid()), "JFR.stop", "name=probe").inheritIO().start().waitFor();
            }
        }
    }
}
