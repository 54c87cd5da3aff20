package io.k4j.controllers.nodelifecycle;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The nodes of one zone waiting for a NoExecute taint, released at a rate (a token bucket with burst 1, as upstream's
 * {@code RateLimitedTimedQueue}); a rate of zero holds every node back. Thread-safe.
 */
final class RateLimitedTainter {
    private final LinkedHashSet<String> waiting = new LinkedHashSet<>();
    private double qps;
    private double tokens = 1;
    private Instant last;

    RateLimitedTainter(double qps, Instant now) {
        this.qps = qps;
        this.last = now;
    }

    synchronized void add(String node) {
        waiting.add(node);
    }

    synchronized void remove(String node) {
        waiting.remove(node);
    }

    synchronized boolean contains(String node) {
        return waiting.contains(node);
    }

    synchronized void swapRate(double newQps) {
        qps = newQps;
        if (qps == 0) {
            tokens = 0;
        }
    }

    /** Takes the nodes the rate allows now, oldest first. */
    synchronized List<String> take(Instant now) {
        if (qps > 0) {
            double seconds = Duration.between(last, now).toNanos() / 1e9;
            tokens = Math.min(1, tokens + Math.max(0, seconds) * qps);
        }
        last = now;
        List<String> taken = new ArrayList<>();
        var iterator = waiting.iterator();
        while (iterator.hasNext() && tokens >= 1) {
            taken.add(iterator.next());
            iterator.remove();
            tokens -= 1;
        }
        return taken;
    }
}
