package io.k4j.scheduler.framework;

import java.util.HashSet;
import java.util.Set;

/**
 * Why a cycle found no node: per-node statuses, the plugins that rejected the pod (which decide the events that
 * requeue it) and the PreFilter/PostFilter messages. Not thread-safe.
 */
public final class Diagnosis {
    private final NodeToStatus nodeToStatus = new NodeToStatus();
    private final Set<String> unschedulablePlugins = new HashSet<>();
    private final Set<String> pendingPlugins = new HashSet<>();
    private String preFilterMessage = "";
    private String postFilterMessage = "";

    public NodeToStatus nodeToStatus() {
        return nodeToStatus;
    }

    public Set<String> unschedulablePlugins() {
        return unschedulablePlugins;
    }

    public Set<String> pendingPlugins() {
        return pendingPlugins;
    }

    /** Records the plugin of a rejecting status. */
    public void addPluginStatus(Status status) {
        if (status.plugin().isEmpty()) {
            return;
        }
        if (status.isRejected()) {
            unschedulablePlugins.add(status.plugin());
        }
        if (status.code() == Code.PENDING) {
            pendingPlugins.add(status.plugin());
        }
    }

    public String preFilterMessage() {
        return preFilterMessage;
    }

    public void setPreFilterMessage(String message) {
        this.preFilterMessage = message;
    }

    public String postFilterMessage() {
        return postFilterMessage;
    }

    public void setPostFilterMessage(String message) {
        this.postFilterMessage = message;
    }
}
