package io.k4j.bench;

import java.util.Arrays;

/** Latency samples in nanoseconds with percentile summaries. Not thread-safe; merge per-thread instances. */
final class Latencies {
    private long[] samples = new long[1024];
    private int count;

    void record(long nanoseconds) {
        if (count == samples.length) {
            samples = Arrays.copyOf(samples, count * 2);
        }
        samples[count++] = nanoseconds;
    }

    void addAll(Latencies other) {
        for (int i = 0; i < other.count; i++) {
            record(other.samples[i]);
        }
    }

    void clear() {
        count = 0;
    }

    Latencies copy() {
        Latencies copy = new Latencies();
        copy.addAll(this);
        return copy;
    }

    int count() {
        return count;
    }

    /** The p-th percentile in milliseconds (p in 0..100). */
    double percentileMillis(double p) {
        if (count == 0) {
            return Double.NaN;
        }
        long[] sorted = Arrays.copyOf(samples, count);
        Arrays.sort(sorted);
        int index = (int) Math.ceil(p / 100.0 * count) - 1;
        return sorted[Math.max(0, Math.min(count - 1, index))] / 1_000_000.0;
    }
}
