package io.k4j.kubelet.simulated;

import static java.util.Objects.requireNonNull;

import io.k4j.kubelet.nodestatus.NodeHeartbeat;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * When each simulated node's next heartbeat (Lease renewal and status check) is due: one ordered set for all nodes
 * instead of a timer per node, so thousands of nodes cost one sleeping thread. A node taken for a heartbeat is "in
 * flight" until {@link #succeeded} (next one an interval later) or {@link #failed} (retried with the kubelet's lease
 * backoff) — never twice at once. Not thread-safe: the owner guards it.
 */
final class HeartbeatSchedule {
    private final Duration interval;
    private final Duration batchWindow;
    private final Map<String, Entry> entries = new HashMap<>();
    private final TreeSet<Entry> queue = new TreeSet<>(Comparator.comparing(Entry::due).thenComparing(Entry::node));

    private record Entry(String node, Instant due, int failures) {}

    /**
     * @param batchWindow nodes due within this long after the earliest due one are taken with it (see
     *     {@link #pollDue}); zero to take each node at its own time
     */
    HeartbeatSchedule(Duration interval, Duration batchWindow) {
        this.interval = requireNonNull(interval, "interval is null");
        this.batchWindow = requireNonNull(batchWindow, "batchWindow is null");
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("interval must be positive: " + interval);
        }
        if (batchWindow.isNegative() || batchWindow.compareTo(interval) >= 0) {
            throw new IllegalArgumentException("batchWindow must be in [0, interval): " + batchWindow);
        }
    }

    /**
     * A stable offset in [0, interval) from the node's name, so that nodes registered together do not all renew
     * in the same instant.
     */
    static Duration spread(String node, Duration interval) {
        long millis = interval.toMillis();
        return Duration.ofMillis(Math.floorMod(node.hashCode() * 2654435761L, millis));
    }

    /** Schedules a node (again); a node already scheduled or in flight keeps its place. */
    void add(String node, Instant due) {
        requireNonNull(node, "node is null");
        requireNonNull(due, "due is null");
        if (entries.containsKey(node)) {
            return;
        }
        Entry entry = new Entry(node, due, 0);
        entries.put(node, entry);
        queue.add(entry);
    }

    /** Forgets a node, scheduled or in flight. */
    void remove(String node) {
        Entry entry = entries.remove(node);
        if (entry != null) {
            queue.remove(entry);
        }
    }

    boolean contains(String node) {
        return entries.containsKey(node);
    }

    int size() {
        return entries.size();
    }

    /** The earliest due time of a node not in flight. */
    Optional<Instant> nextDue() {
        return queue.isEmpty() ? Optional.empty() : Optional.of(queue.first().due());
    }

    /**
     * Takes every node due at {@code now}, and with them those due within the batch window after it; they are in flight
     * until {@link #succeeded} or {@link #failed}. Heartbeats sent together share the datastore's commits and syncs,
     * and nodes taken together once stay together, so thousands of nodes settle into batches a window apart.
     */
    List<String> pollDue(Instant now) {
        List<String> due = new ArrayList<>();
        if (queue.isEmpty() || queue.first().due().isAfter(now)) {
            return due;
        }
        Instant until = now.plus(batchWindow);
        while (!queue.isEmpty() && !queue.first().due().isAfter(until)) {
            due.add(queue.pollFirst().node());
        }
        return due;
    }

    /** The heartbeat worked: the next one is an interval later. Ignored for a node removed meanwhile. */
    void succeeded(String node, Instant now) {
        reschedule(node, now.plus(interval), 0);
    }

    /** The heartbeat failed: retry after the kubelet's backoff (200 ms doubling up to 7 s, never beyond the interval). */
    void failed(String node, Instant now) {
        Entry entry = entries.get(node);
        if (entry == null) {
            return;
        }
        int failures = entry.failures() + 1;
        Duration delay = NodeHeartbeat.leaseRetryDelay(failures);
        reschedule(node, now.plus(delay.compareTo(interval) > 0 ? interval : delay), failures);
    }

    private void reschedule(String node, Instant due, int failures) {
        Entry entry = entries.get(node);
        if (entry == null) {
            return;
        }
        queue.remove(entry);
        Entry next = new Entry(node, due, failures);
        entries.put(node, next);
        queue.add(next);
    }
}
