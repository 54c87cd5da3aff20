package io.k4j.scheduler.framework;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.HashSet;
import java.util.Set;

/**
 * A pod in the scheduling queue with its queueing history: when it was queued, how often it was tried, and which
 * plugins rejected it last (which decides the events that move it back). Owned by the queue and the one scheduling
 * cycle that popped it; not thread-safe.
 */
public final class QueuedPodInfo {
    private PodInfo podInfo;
    private Instant timestamp;
    private final Instant initialAttemptTimestamp;
    private int attempts;
    private final Set<String> unschedulablePlugins = new HashSet<>();
    private final Set<String> pendingPlugins = new HashSet<>();
    private boolean gated;
    private String gatingPlugin = "";

    public QueuedPodInfo(PodInfo podInfo, Instant timestamp) {
        this.podInfo = requireNonNull(podInfo, "podInfo is null");
        this.timestamp = requireNonNull(timestamp, "timestamp is null");
        this.initialAttemptTimestamp = timestamp;
    }

    public PodInfo podInfo() {
        return podInfo;
    }

    public void setPodInfo(PodInfo podInfo) {
        this.podInfo = requireNonNull(podInfo, "podInfo is null");
    }

    public String uid() {
        return podInfo.uid();
    }

    /** When the pod was last added to the queue; the tie-breaker of PrioritySort and the backoff base. */
    public Instant timestamp() {
        return timestamp;
    }

    public void setTimestamp(Instant timestamp) {
        this.timestamp = requireNonNull(timestamp, "timestamp is null");
    }

    public Instant initialAttemptTimestamp() {
        return initialAttemptTimestamp;
    }

    /** How many scheduling cycles tried the pod. */
    public int attempts() {
        return attempts;
    }

    public void incrementAttempts() {
        attempts++;
    }

    /** The plugins that rejected the pod in its last cycle. */
    public Set<String> unschedulablePlugins() {
        return unschedulablePlugins;
    }

    public Set<String> pendingPlugins() {
        return pendingPlugins;
    }

    /** Whether a PreEnqueue plugin keeps the pod out of the active queue. */
    public boolean gated() {
        return gated;
    }

    public String gatingPlugin() {
        return gatingPlugin;
    }

    public void setGated(boolean gated, String plugin) {
        this.gated = gated;
        this.gatingPlugin = plugin;
    }
}
