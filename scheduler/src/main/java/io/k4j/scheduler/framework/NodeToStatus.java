package io.k4j.scheduler.framework;

import static java.util.Objects.requireNonNull;

import java.util.HashMap;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Why each node rejected a pod: explicit statuses per node plus one status for the nodes that were never evaluated
 * (those a PreFilter result excluded: UnschedulableAndUnresolvable). Not thread-safe.
 */
public final class NodeToStatus {
    private final Map<String, Status> statuses;
    private Status absentNodesStatus;

    public NodeToStatus() {
        this.statuses = new HashMap<>();
        this.absentNodesStatus = Status.unresolvable().withPlugin("");
    }

    public void set(String nodeName, Status status) {
        statuses.put(nodeName, requireNonNull(status, "status is null"));
    }

    /** The status of a node, the absent-node status when it was not evaluated. */
    public Status get(String nodeName) {
        Status status = statuses.get(nodeName);
        return status == null ? absentNodesStatus : status;
    }

    public boolean containsExplicit(String nodeName) {
        return statuses.containsKey(nodeName);
    }

    public void setAbsentNodesStatus(Status status) {
        this.absentNodesStatus = requireNonNull(status, "status is null");
    }

    public Status absentNodesStatus() {
        return absentNodesStatus;
    }

    public int size() {
        return statuses.size();
    }

    public void forEachExplicit(BiConsumer<String, Status> action) {
        statuses.forEach(action);
    }
}
