package io.k4j.bench;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Scheduling throughput as upstream's scheduler_perf reports it ({@code SchedulingThroughput}): a collector that starts
 * with the pods' creation samples the count of scheduled pods once per interval; the first sample with any pod
 * scheduled only sets the base; an interval in which no pod got scheduled is folded into the next one, which is then
 * recorded once per interval it covers; sampling stops once the last pod is scheduled (the partial last interval is not
 * recorded). The published bars are the average of these samples. Here the samples are computed afterwards from the
 * times at which a watch saw each pod bound, which is what upstream's informer-based collector counts.
 *
 * @param samples the per-interval throughputs in pods/s, in ascending order
 */
record SchedulingThroughput(List<Double> samples) {
    SchedulingThroughput {
        samples = List.copyOf(requireNonNull(samples, "samples is null"));
    }

    /**
     * @param bindNanos when each pod was seen bound (any order)
     * @param startNanos when the collector started (the first create)
     * @param intervalNanos the sampling interval (upstream: one second)
     */
    static SchedulingThroughput of(long[] bindNanos, long startNanos, long intervalNanos) {
        if (intervalNanos <= 0) {
            throw new IllegalArgumentException("interval must be positive: " + intervalNanos);
        }
        long[] sorted = bindNanos.clone();
        Arrays.sort(sorted);
        List<Double> samples = new ArrayList<>();
        if (sorted.length == 0) {
            return new SchedulingThroughput(samples);
        }
        long last = sorted[sorted.length - 1];
        boolean started = false;
        int lastCount = 0;
        long lastSample = startNanos;
        int skipped = 0;
        int scheduled = 0;
        for (long tick = startNanos + intervalNanos; tick <= last; tick += intervalNanos) {
            while (scheduled < sorted.length && sorted[scheduled] <= tick) {
                scheduled++;
            }
            if (scheduled == 0) {
                continue;
            }
            if (!started) {
                started = true;
                lastCount = scheduled;
                lastSample = tick;
                continue;
            }
            int newlyScheduled = scheduled - lastCount;
            if (newlyScheduled == 0) {
                skipped++;
                continue;
            }
            double throughput = newlyScheduled / ((tick - lastSample) / 1e9);
            for (int i = 0; i <= skipped; i++) {
                samples.add(throughput);
            }
            lastCount = scheduled;
            lastSample = tick;
            skipped = 0;
        }
        samples.sort(null);
        return new SchedulingThroughput(samples);
    }

    /** The mean of the samples (upstream's "Average"), NaN when there is none. */
    double average() {
        return samples.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
    }

    /** The p-th percentile of the samples as upstream picks it (the ceil(n·p/100)-th smallest), NaN when there is none. */
    double percentile(int p) {
        if (samples.isEmpty()) {
            return Double.NaN;
        }
        int index = (int) Math.ceil(samples.size() * p / 100.0) - 1;
        return samples.get(Math.max(0, Math.min(samples.size() - 1, index)));
    }
}
