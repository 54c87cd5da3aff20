package io.k4j.kubelet.nodestatus;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.k4j.api.codec.Timestamps;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The node conditions a kubelet owns (MemoryPressure, DiskPressure, PIDPressure, Ready) and the rule for when they
 * must be written: at once when one of them changed, else when {@link NodeHeartbeat#NODE_STATUS_REPORT_FREQUENCY}
 * passed since the last heartbeat. Stateless and thread-safe.
 */
public final class NodeConditions {
    public static final String READY = "Ready";
    public static final String MEMORY_PRESSURE = "MemoryPressure";
    public static final String DISK_PRESSURE = "DiskPressure";
    public static final String PID_PRESSURE = "PIDPressure";

    /**
     * One condition as the kubelet decides it, without its timestamps.
     *
     * @param status {@code True}, {@code False} or {@code Unknown}
     */
    public record Desired(String type, String status, String reason, String message) {
        public Desired {
            requireNonNull(type, "type is null");
            requireNonNull(status, "status is null");
            requireNonNull(reason, "reason is null");
            requireNonNull(message, "message is null");
        }
    }

    /** A healthy node, with upstream's reasons and messages, in upstream's order. */
    public static final List<Desired> HEALTHY = List.of(
            new Desired(MEMORY_PRESSURE, "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
            new Desired(DISK_PRESSURE, "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
            new Desired(PID_PRESSURE, "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
            new Desired(READY, "True", "KubeletReady", "kubelet is posting ready status"));

    private NodeConditions() {}

    /**
     * The conditions to write at {@code now}: every heartbeat is {@code now}; a transition time is kept while the
     * condition's status stays the same, as upstream keeps it.
     */
    public static List<NodeCondition> build(List<Desired> desired, List<NodeCondition> current, Instant now) {
        String heartbeat = Timestamps.format(now);
        List<NodeCondition> conditions = new ArrayList<>(desired.size());
        for (Desired wanted : desired) {
            Optional<NodeCondition> previous = find(current, wanted.type());
            String transition = previous
                    .filter(condition -> wanted.status().equals(condition.getStatus()) && condition.getLastTransitionTime() != null)
                    .map(NodeCondition::getLastTransitionTime)
                    .orElse(heartbeat);
            conditions.add(new NodeConditionBuilder()
                    .withType(wanted.type())
                    .withStatus(wanted.status())
                    .withReason(wanted.reason())
                    .withMessage(wanted.message())
                    .withLastHeartbeatTime(heartbeat)
                    .withLastTransitionTime(transition)
                    .build());
        }
        return List.copyOf(conditions);
    }

    /**
     * Whether the node's status must be written now: a wanted condition is missing or differs in status, reason or
     * message, or the Ready condition's last heartbeat is {@link NodeHeartbeat#NODE_STATUS_REPORT_FREQUENCY} old.
     */
    public static boolean reportDue(List<Desired> desired, List<NodeCondition> current, Instant now) {
        for (Desired wanted : desired) {
            Optional<NodeCondition> previous = find(current, wanted.type());
            if (previous.isEmpty()
                    || !wanted.status().equals(previous.get().getStatus())
                    || !wanted.reason().equals(previous.get().getReason())
                    || !wanted.message().equals(previous.get().getMessage())) {
                return true;
            }
        }
        Optional<Instant> lastHeartbeat = find(current, READY).map(NodeCondition::getLastHeartbeatTime).flatMap(NodeConditions::parse);
        return lastHeartbeat.isEmpty() || !now.isBefore(lastHeartbeat.get().plus(NodeHeartbeat.NODE_STATUS_REPORT_FREQUENCY));
    }

    /** Upstream's Event reasons for a node whose Ready condition changed. */
    public static final String NODE_READY = "NodeReady";
    public static final String NODE_NOT_READY = "NodeNotReady";

    /**
     * The Event upstream's kubelet records when it writes {@code desired} over {@code current}: {@link #NODE_READY} or
     * {@link #NODE_NOT_READY} when the Ready condition's status changes (or appears), nothing while it stays.
     */
    public static Optional<String> readyTransition(List<Desired> desired, List<NodeCondition> current) {
        Optional<Desired> wanted = desired.stream().filter(condition -> condition.type().equals(READY)).findFirst();
        if (wanted.isEmpty()) {
            return Optional.empty();
        }
        Optional<NodeCondition> previous = find(current, READY);
        if (previous.isPresent() && wanted.get().status().equals(previous.get().getStatus())) {
            return Optional.empty();
        }
        return Optional.of("True".equals(wanted.get().status()) ? NODE_READY : NODE_NOT_READY);
    }

    /** The condition of a type, if present. */
    public static Optional<NodeCondition> find(List<NodeCondition> conditions, String type) {
        if (conditions == null) {
            return Optional.empty();
        }
        return conditions.stream().filter(condition -> type.equals(condition.getType())).findFirst();
    }

    private static Optional<Instant> parse(String timestamp) {
        try {
            return Optional.of(Timestamps.parse(timestamp));
        } catch (IllegalArgumentException | NullPointerException e) {
            return Optional.empty();
        }
    }
}
