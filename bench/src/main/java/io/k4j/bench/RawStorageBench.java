package io.k4j.bench;

import static java.util.Objects.requireNonNull;

import io.k4j.storage.KeyValue;
import io.k4j.storage.KeyValueStore;
import io.k4j.storage.Lease;
import io.k4j.storage.RangeRequest;
import io.k4j.storage.RangeResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The reference every apiserver write rate is compared with: the storage's own create rate for stored pods. A run
 * deletes what it created once it is measured.
 */
final class RawStorageBench {
    /** Keys read per page when a run's keys are deleted; {@link #DELETES_IN_FLIGHT} of them are deleted at a time. */
    private static final int DELETE_PAGE = 1024;
    private static final int DELETES_IN_FLIGHT = 64;

    private RawStorageBench() {}

    /** Result of one run: creates per second and latency percentiles. */
    record Result(int clients, int creates, double perSecond, double p50Millis, double p99Millis) {}

    static Result creates(KeyValueStore store, String prefix, int clients, int creates, byte[] value) throws Exception {
        AtomicInteger next = new AtomicInteger();
        List<Latencies> perClient = new ArrayList<>();
        long start = System.nanoTime();
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Latencies>> futures = new ArrayList<>();
            for (int client = 0; client < clients; client++) {
                futures.add(executor.submit(() -> {
                    Latencies latencies = new Latencies();
                    for (int index = next.getAndIncrement(); index < creates; index = next.getAndIncrement()) {
                        long begin = System.nanoTime();
                        store.create(prefix + index, value, Lease.NONE);
                        latencies.record(System.nanoTime() - begin);
                    }
                    return latencies;
                }));
            }
            for (Future<Latencies> future : futures) {
                perClient.add(future.get());
            }
        }
        long elapsed = System.nanoTime() - start;
        Latencies all = new Latencies();
        perClient.forEach(all::addAll);
        // Unmeasured: the keys go again, so that the storage holds only the server's objects besides its history. Kept,
        // the reference's runs filled the bench's etcd to its 2 GiB quota once a long warm-up added its history.
        deleteAll(store, prefix);
        return new Result(clients, creates, creates / (elapsed / 1e9), all.percentileMillis(50), all.percentileMillis(99));
    }

    private static void deleteAll(KeyValueStore store, String prefix) throws Exception {
        RangeRequest firstPage = RangeRequest.prefix(prefix).withLimit(DELETE_PAGE);
        try (ExecutorService executor = Executors.newFixedThreadPool(DELETES_IN_FLIGHT, Thread.ofVirtual().factory())) {
            for (RangeResult page = store.range(firstPage); !page.items().isEmpty(); page = store.range(firstPage)) {
                List<Future<KeyValue>> deletes = new ArrayList<>();
                for (KeyValue item : page.items()) {
                    deletes.add(executor.submit(() -> store.delete(item.key(), item.modRevision())));
                }
                for (Future<KeyValue> delete : deletes) {
                    delete.get();
                }
            }
        }
    }

    /**
     * What the server stores for {@link PodTemplates#pod}: the pod with its defaults, the service account's volume and
     * the managed fields, about 2.2 KB of JSON (stored-pod.json, read from a k4j server's database after a create).
     * The reference stores this, not the 0.3 KB request body, so that both sides of the ratio store the same bytes.
     */
    static byte[] storedPodValue() {
        try (InputStream in = RawStorageBench.class.getResourceAsStream("stored-pod.json")) {
            return requireNonNull(in, "stored-pod.json is missing from the bench's resources").readAllBytes();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The body of a pod create request: what a reference without the server's additions would store. */
    static byte[] requestSizedValue() {
        return PodTemplates.pod("raw", "bench").getBytes(StandardCharsets.UTF_8);
    }
}
