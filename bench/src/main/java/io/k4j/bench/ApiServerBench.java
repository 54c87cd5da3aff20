package io.k4j.bench;

import static java.util.Objects.requireNonNull;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/** Measurements against a running apiserver over its public REST API, as any client sees it. */
final class ApiServerBench {
    private final List<ClusterClient> clients;

    /** @param clients independent HTTP/2 clients to spread load and streams over */
    ApiServerBench(List<ClusterClient> clients) {
        this.clients = List.copyOf(requireNonNull(clients, "clients is null"));
        if (clients.isEmpty()) {
            throw new IllegalArgumentException("at least one client is needed");
        }
    }

    /**
     * A bench over {@code count} clients of the cluster in {@code kubeconfig}, each connected before any concurrent
     * use: the JDK client opens a connection per request while it has none (see {@link JdkWatchStreams}, which
     * connects them again).
     */
    static ApiServerBench connect(Path kubeconfig, int count) {
        List<ClusterClient> clients = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ClusterClient client = ClusterClient.fromKubeconfig(kubeconfig);
            client.require("GET", "/version", null);
            clients.add(client);
        }
        return new ApiServerBench(clients);
    }

    ClusterClient client() {
        return clients.get(0);
    }

    /**
     * Creates a namespace with its {@code default} service account, which pods need. The ServiceAccount controller
     * usually creates it first; creating it here too keeps the bench independent of how fast that controller is.
     */
    void createNamespace(String name) {
        client().require("POST", "/api/v1/namespaces", PodTemplates.namespace(name));
        HttpResponse<String> account = client().send("POST", "/api/v1/namespaces/" + name + "/serviceaccounts", "{\"metadata\":{\"name\":\"default\"}}");
        if (account.statusCode() / 100 != 2 && account.statusCode() != 409) {
            throw new IllegalStateException("creating the default service account answered " + account.statusCode() + ": " + account.body());
        }
    }

    /** Deletes every pod of the namespace with one deletecollection and waits until none is left. */
    void deleteAllPods(String namespace) {
        client().require("DELETE", "/api/v1/namespaces/" + namespace + "/pods", null);
        await("the pods of " + namespace + " deleted").atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(200))
                .until(() -> new ObjectMapper().readTree(client().require("GET", "/api/v1/namespaces/" + namespace + "/pods?limit=1", null)).path("items").isEmpty());
    }

    /** Creates {@code creates} pods with {@code concurrency} concurrent callers. */
    RawStorageBench.Result createPods(String namespace, String namePrefix, int concurrency, int creates) throws Exception {
        AtomicInteger next = new AtomicInteger();
        long start = System.nanoTime();
        Latencies all = new Latencies();
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Latencies>> futures = new ArrayList<>();
            for (int caller = 0; caller < concurrency; caller++) {
                ClusterClient client = clients.get(caller % clients.size());
                futures.add(executor.submit(() -> {
                    Latencies latencies = new Latencies();
                    for (int index = next.getAndIncrement(); index < creates; index = next.getAndIncrement()) {
                        long begin = System.nanoTime();
                        client.require("POST", "/api/v1/namespaces/" + namespace + "/pods", PodTemplates.pod(namePrefix + index, namespace));
                        latencies.record(System.nanoTime() - begin);
                    }
                    return latencies;
                }));
            }
            for (Future<Latencies> future : futures) {
                all.addAll(future.get());
            }
        }
        long elapsed = System.nanoTime() - start;
        return new RawStorageBench.Result(concurrency, creates, creates / (elapsed / 1e9), all.percentileMillis(50), all.percentileMillis(99));
    }

    /** GET latencies of existing pods, sequentially. */
    Latencies getPods(String namespace, List<String> names, int samples) {
        Latencies latencies = new Latencies();
        for (int sample = 0; sample < samples; sample++) {
            long begin = System.nanoTime();
            client().require("GET", "/api/v1/namespaces/" + namespace + "/pods/" + names.get(sample % names.size()), null);
            latencies.record(System.nanoTime() - begin);
        }
        return latencies;
    }

    /**
     * {@code repetitions} LISTs of the namespace's pods by h2load, one after the other, after {@link #LIST_WARM_UP}
     * unrecorded ones: a native client reads and drops each response, where the JDK client's own HTTP/2 and TLS
     * reading of a 20 MB body took longer than the server's answer (and spread from 50 to 500 ms).
     */
    Latencies listPods(H2Load h2load, String namespace, int repetitions, int expectedItems) {
        checkListSize(namespace, expectedItems);
        String path = "/api/v1/namespaces/" + namespace + "/pods";
        h2load.get(path, LIST_WARM_UP);
        H2Load.Run run = h2load.get(path, repetitions);
        if (run.succeeded() != run.requests()) {
            throw new IllegalStateException("only " + run.succeeded() + " of " + run.requests() + " LISTs of " + path + " succeeded");
        }
        return run.latencies();
    }

    /** Checks, by reading one LIST whole, that the namespace has {@code expectedItems} pods. */
    void checkListSize(String namespace, int expectedItems) {
        int items = podNames(namespace).size();
        if (items != expectedItems) {
            throw new IllegalStateException("the list has " + items + " pods, not " + expectedItems);
        }
    }

    /** The names of the namespace's pods. */
    List<String> podNames(String namespace) {
        try {
            JsonNode list = new ObjectMapper().readTree(client().require("GET", "/api/v1/namespaces/" + namespace + "/pods", null));
            List<String> names = new ArrayList<>();
            list.path("items").forEach(item -> names.add(item.path("metadata").path("name").asText()));
            return names;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * LISTs sent before the recorded ones: as with the watch fan-out's warm-up changes, the first large reads measure the
     * JIT compiling this client's HTTP/2 and TLS paths (300 ms and more per LIST at first, against 50–100 ms warm), not
     * the server's LIST.
     */
    private static final int LIST_WARM_UP = 10;

    /**
     * Latencies of {@code repetitions} full LISTs of the namespace's pods (no limit), each until the client received the
     * whole body, after {@link #LIST_WARM_UP} unrecorded ones.
     */
    Latencies listPods(String namespace, int repetitions, int expectedItems) {
        String path = "/api/v1/namespaces/" + namespace + "/pods";
        checkListSize(namespace, expectedItems);
        Latencies latencies = new Latencies();
        byte[] buffer = new byte[64 * 1024];
        for (int repetition = -LIST_WARM_UP; repetition < repetitions; repetition++) {
            // From the request to the list's last byte, as upstream's latency SLI counts a LIST until its response is
            // written; the bytes are read and dropped, because turning 20 MB into a String or a JSON tree is this
            // client's work, not the server's (the first read above checked the content).
            long begin = System.nanoTime();
            long received = 0;
            HttpResponse<InputStream> response;
            try {
                response = client().httpClient().send(HttpRequest.newBuilder(client().server().resolve(path))
                        .header("Accept", "application/json").timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofInputStream());
                try (InputStream body = response.body()) {
                    for (int read = body.read(buffer); read >= 0; read = body.read(buffer)) {
                        received += read;
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
            if (repetition >= 0) {
                latencies.record(System.nanoTime() - begin);
            }
            long declared = response.headers().firstValueAsLong("content-length").orElse(-1);
            if (response.statusCode() != 200 || received != declared) {
                throw new IllegalStateException("LIST " + path + " answered " + response.statusCode() + " with " + received + " of " + declared + " bytes");
            }
        }
        return latencies;
    }

    /**
     * One change to {@code watchers} watches at a time: each change is a PATCH of one ConfigMap that every watch
     * selects, and its latency per watcher runs from sending the PATCH to that watcher reading the event. The first
     * changes are not recorded: they come in sets of {@code warmUp.changesPerSet()}, until {@code warmUp.settled()}
     * says a set ran warm (or after {@code warmUp.maxSets()}), as both the server's and the client's JIT compile the
     * paths of 1,000 streams during the first ones, and upstream's watch latency SLI describes the steady state. The
     * watches are opened on {@code streams}, which this closes.
     */
    FanOut watchFanOut(WatchStreams streams, String namespace, int watchers, FanOutWarmUp warmUp, int changes) throws Exception {
        // Watch from before the create: every watcher then sees the create first, which proves it is connected.
        String resourceVersion = resourceVersionOf(namespace);
        FanOutChanges fanOut = new FanOutChanges(watchers);
        try (streams) {
            String path = "/api/v1/namespaces/" + namespace + "/configmaps?watch=true&fieldSelector=metadata.name%3Dfan-out&resourceVersion=" + resourceVersion;
            for (int watcher = 0; watcher < watchers; watcher++) {
                streams.open(path, fanOut::onLine);
            }
            client().require("POST", "/api/v1/namespaces/" + namespace + "/configmaps", PodTemplates.configMap("fan-out", "0"));
            if (!fanOut.delivered.await(120, TimeUnit.SECONDS)) {
                throw new IllegalStateException("only " + (watchers - fanOut.delivered.getCount()) + " of " + watchers + " watchers connected");
            }
            for (int set = 1; set <= warmUp.maxSets(); set++) {
                warmUp.startSet().run();
                for (int i = 0; i < warmUp.changesPerSet(); i++) {
                    change(namespace, fanOut);
                }
                if (warmUp.settled().getAsBoolean()) {
                    break;
                }
            }
            int warmUpChanges = fanOut.current;
            fanOut.recording = true;
            for (int i = 0; i < changes; i++) {
                change(namespace, fanOut);
            }
            Latencies latencies = new Latencies();
            fanOut.delays.forEach(latencies::record);
            return new FanOut(latencies, warmUpChanges);
        }
    }

    /** The recorded latencies of a fan-out, and how many unrecorded changes warmed it up. */
    record FanOut(Latencies latencies, int warmUpChanges) {}

    /**
     * How a fan-out warms up: sets of {@code changesPerSet} unrecorded changes, at most {@code maxSets}; {@code startSet}
     * runs before each set and {@code settled} after it says whether that set ran warm.
     */
    record FanOutWarmUp(int changesPerSet, int maxSets, Runnable startSet, BooleanSupplier settled) {
        /** A fixed number of warm-up changes. */
        static FanOutWarmUp fixed(int changes) {
            return new FanOutWarmUp(changes, 1, () -> {}, () -> true);
        }
    }

    /**
     * The change the watchers wait for (the ConfigMap's value, counted from 0, the create) and who read it: set by the
     * bench's thread before each write, read by the watches' threads.
     */
    private static final class FanOutChanges {
        private final int watchers;
        private final ConcurrentLinkedQueue<Long> delays = new ConcurrentLinkedQueue<>();
        private volatile int current;
        private volatile long writeStartedNanos;
        private volatile CountDownLatch delivered;
        private volatile boolean recording;

        FanOutChanges(int watchers) {
            this.watchers = watchers;
            this.delivered = new CountDownLatch(watchers);
        }

        /** A watcher read {@code line}: counts it when it carries the current change, with its delay once recording. */
        void onLine(String line) {
            if (line.contains("\"value\":\"" + current + "\"")) {
                if (recording) {
                    delays.add(System.nanoTime() - writeStartedNanos);
                }
                delivered.countDown();
            }
        }

        /** Starts the next change's count and clock; returns its number. */
        int next() {
            delivered = new CountDownLatch(watchers);
            current = current + 1;
            writeStartedNanos = System.nanoTime();
            return current;
        }
    }

    /** Patches the ConfigMap to the next value and waits until every watcher read it. */
    private void change(String namespace, FanOutChanges fanOut) throws Exception {
        int change = fanOut.next();
        String body = "{\"data\":{\"value\":\"" + change + "\"}}";
        HttpResponse<String> patched = client().httpClient().send(HttpRequest.newBuilder(client().server().resolve(
                        "/api/v1/namespaces/" + namespace + "/configmaps/fan-out"))
                .header("Content-Type", "application/merge-patch+json")
                .method("PATCH", HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(30))
                .build(), HttpResponse.BodyHandlers.ofString());
        if (patched.statusCode() != 200) {
            throw new IllegalStateException("patch answered " + patched.statusCode() + ": " + patched.body());
        }
        if (!fanOut.delivered.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("change " + change + " reached only " + (fanOut.watchers - fanOut.delivered.getCount()) + " watchers");
        }
    }

    /** Watch streams over this bench's JDK clients. */
    WatchStreams jdkWatchStreams() {
        return new JdkWatchStreams(clients);
    }

    /** Watch streams over {@code connections} connections of Jetty's HTTP/2 client, with this bench's credentials. */
    WatchStreams http2WatchStreams(int connections) {
        return new Http2WatchStreams(client().server(), client().httpClient().sslContext(), connections);
    }

    private String resourceVersionOf(String namespace) {
        String list = client().require("GET", "/api/v1/namespaces/" + namespace + "/configmaps?limit=1", null);
        int start = list.indexOf("\"resourceVersion\":\"") + "\"resourceVersion\":\"".length();
        return list.substring(start, list.indexOf('"', start));
    }
}
