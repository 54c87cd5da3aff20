package io.k4j.bench;

import io.k4j.storage.KeyValueStore;
import io.k4j.storage.Lease;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/** The reference every apiserver write rate is compared with: the storage's own create rate for pod-sized values. */
final class RawStorageBench {
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
        return new Result(clients, creates, creates / (elapsed / 1e9), all.percentileMillis(50), all.percentileMillis(99));
    }

    /** A stored pod of typical size (a created pod with defaults is about 2-3 KiB of JSON). */
    static byte[] podSizedValue() {
        return PodTemplates.pod("raw", "bench").getBytes(StandardCharsets.UTF_8);
    }
}
