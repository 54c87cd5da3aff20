package io.k4j.controllers.nodelifecycle;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** The well-known node taints the node lifecycle controller manages, and how node conditions map to them. */
final class NodeTaints {
    static final String NOT_READY = "node.kubernetes.io/not-ready";
    static final String UNREACHABLE = "node.kubernetes.io/unreachable";
    static final String UNSCHEDULABLE = "node.kubernetes.io/unschedulable";
    static final String MEMORY_PRESSURE = "node.kubernetes.io/memory-pressure";
    static final String DISK_PRESSURE = "node.kubernetes.io/disk-pressure";
    static final String PID_PRESSURE = "node.kubernetes.io/pid-pressure";
    static final String NETWORK_UNAVAILABLE = "node.kubernetes.io/network-unavailable";
    static final String NO_EXECUTE = "NoExecute";
    static final String NO_SCHEDULE = "NoSchedule";

    /** Keys whose NoSchedule taint follows node conditions; others' taints are never touched. */
    static final Set<String> NO_SCHEDULE_KEYS = Set.of(NOT_READY, UNREACHABLE, UNSCHEDULABLE, MEMORY_PRESSURE, DISK_PRESSURE, PID_PRESSURE, NETWORK_UNAVAILABLE);

    private NodeTaints() {}

    static Taint taint(String key, String effect, String timeAdded) {
        return new TaintBuilder().withKey(key).withEffect(effect).withTimeAdded(timeAdded).build();
    }

    static List<Taint> taints(Node node) {
        return node.getSpec() == null || node.getSpec().getTaints() == null ? List.of() : node.getSpec().getTaints();
    }

    static boolean has(Node node, String key, String effect) {
        return taints(node).stream().anyMatch(taint -> key.equals(taint.getKey()) && effect.equals(taint.getEffect()));
    }

    static Optional<NodeCondition> condition(Node node, String type) {
        if (node.getStatus() == null || node.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        return node.getStatus().getConditions().stream().filter(condition -> type.equals(condition.getType())).findFirst();
    }

    /** The NoSchedule taint keys a node's conditions and spec call for, as upstream's {@code doNoScheduleTaintingPass}. */
    static Set<String> desiredNoScheduleKeys(Node node) {
        Set<String> keys = new LinkedHashSet<>();
        condition(node, "Ready").ifPresent(ready -> {
            if ("False".equals(ready.getStatus())) {
                keys.add(NOT_READY);
            } else if ("Unknown".equals(ready.getStatus())) {
                keys.add(UNREACHABLE);
            }
        });
        conditionTrue(node, "MemoryPressure", MEMORY_PRESSURE, keys);
        conditionTrue(node, "DiskPressure", DISK_PRESSURE, keys);
        conditionTrue(node, "PIDPressure", PID_PRESSURE, keys);
        conditionTrue(node, "NetworkUnavailable", NETWORK_UNAVAILABLE, keys);
        if (node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable())) {
            keys.add(UNSCHEDULABLE);
        }
        return keys;
    }

    private static void conditionTrue(Node node, String type, String key, Set<String> keys) {
        condition(node, type).filter(condition -> "True".equals(condition.getStatus())).ifPresent(condition -> keys.add(key));
    }

    /** {@code taints} with the managed NoSchedule ones replaced by {@code desired}; the others are kept as they are. */
    static List<Taint> withNoScheduleKeys(List<Taint> taints, Set<String> desired) {
        List<Taint> result = new ArrayList<>();
        Set<String> present = new LinkedHashSet<>();
        for (Taint taint : taints) {
            boolean managed = NO_SCHEDULE.equals(taint.getEffect()) && NO_SCHEDULE_KEYS.contains(taint.getKey());
            if (!managed || desired.contains(taint.getKey())) {
                result.add(taint);
                if (managed) {
                    present.add(taint.getKey());
                }
            }
        }
        for (String key : desired) {
            if (!present.contains(key)) {
                // Upstream leaves timeAdded empty on NoSchedule taints; only NoExecute taints carry it.
                result.add(new TaintBuilder().withKey(key).withEffect(NO_SCHEDULE).build());
            }
        }
        return result;
    }
}
