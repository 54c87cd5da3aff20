package io.k4j.scheduler.framework;

import static java.util.Objects.requireNonNull;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A pod whose binding waits for permit plugins to allow it. Completed once every waiting plugin allowed it, or when
 * one rejects it or its time runs out. Thread-safe.
 */
public final class WaitingPod {
    private final PodInfo pod;
    private final Set<String> pendingPlugins;
    private final CompletableFuture<Status> decision = new CompletableFuture<>();

    WaitingPod(PodInfo pod, Set<String> pendingPlugins) {
        this.pod = requireNonNull(pod, "pod is null");
        this.pendingPlugins = new HashSet<>(pendingPlugins);
    }

    public PodInfo pod() {
        return pod;
    }

    /** Marks the plugin's permission; the pod proceeds when no plugin waits any longer. */
    public synchronized void allow(String plugin) {
        pendingPlugins.remove(plugin);
        if (pendingPlugins.isEmpty()) {
            decision.complete(Status.SUCCESS);
        }
    }

    public void reject(String plugin, String message) {
        decision.complete(Status.unschedulable(message).withPlugin(plugin));
    }

    CompletableFuture<Status> decision() {
        return decision;
    }
}
