package io.k4j.apiserver.registry.core.pod;

import com.fasterxml.jackson.databind.JsonNode;
import io.k4j.apiserver.registry.core.Printing;
import io.k4j.apiserver.registry.core.Trees;
import io.k4j.apiserver.registry.generic.HumanDuration;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The pod table as upstream's {@code printPod}: the same aggregate status and restart strings kubectl shows. */
final class PodPrinting {
    static final List<TableColumn> COLUMNS = List.of(
            TableColumn.nameColumn(),
            TableColumn.string("Ready", "The aggregate readiness state of this pod for accepting traffic."),
            TableColumn.string("Status", "The aggregate status of the containers in this pod."),
            TableColumn.string("Restarts", "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."),
            TableColumn.ageColumn(),
            TableColumn.wide("IP", "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated."),
            TableColumn.wide("Node", "NodeName indicates in which node this pod is scheduled."),
            TableColumn.wide("Nominated Node", "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods."),
            TableColumn.wide("Readiness Gates", "If specified, all readiness gates will be evaluated for pod readiness."));

    private PodPrinting() {}

    static List<Object> row(JsonNode pod, Instant now) {
        JsonNode spec = Trees.at(pod, "spec");
        JsonNode status = Trees.at(pod, "status");
        int restarts = 0;
        int restartableInitRestarts = 0;
        int totalContainers = Trees.size(spec, "containers");
        int readyContainers = 0;
        Instant lastRestart = null;
        Instant lastRestartableInitRestart = null;

        String phase = Trees.text(status, "phase");
        String reason = Trees.text(status, "reason").isEmpty() ? phase : Trees.text(status, "reason");
        for (JsonNode condition : Trees.elements(status, "conditions")) {
            if (Trees.text(condition, "type").equals("PodScheduled") && Trees.text(condition, "reason").equals("SchedulingGated")) {
                reason = "SchedulingGated";
            }
        }

        Map<String, JsonNode> initContainers = new HashMap<>();
        List<JsonNode> initContainerSpecs = Trees.elements(spec, "initContainers");
        for (JsonNode container : initContainerSpecs) {
            initContainers.put(Trees.text(container, "name"), container);
            if (isRestartable(container)) {
                totalContainers++;
            }
        }

        boolean initializing = false;
        List<JsonNode> initStatuses = Trees.elements(status, "initContainerStatuses");
        for (int index = 0; index < initStatuses.size(); index++) {
            JsonNode container = initStatuses.get(index);
            int restartCount = (int) Trees.integer(container, "restartCount");
            restarts += restartCount;
            Instant finished = lastFinished(container);
            lastRestart = later(lastRestart, finished);
            boolean restartable = isRestartable(initContainers.get(Trees.text(container, "name")));
            if (restartable) {
                restartableInitRestarts += restartCount;
                lastRestartableInitRestart = later(lastRestartableInitRestart, finished);
            }
            JsonNode terminated = Trees.at(container, "state", "terminated");
            JsonNode waiting = Trees.at(container, "state", "waiting");
            if (terminated.isObject() && Trees.integer(terminated, "exitCode") == 0) {
                continue;
            }
            if (restartable && Trees.bool(container, "started")) {
                if (Trees.bool(container, "ready")) {
                    readyContainers++;
                }
                continue;
            }
            if (terminated.isObject()) {
                if (Trees.text(terminated, "reason").isEmpty()) {
                    reason = Trees.integer(terminated, "signal") != 0
                            ? "Init:Signal:" + Trees.integer(terminated, "signal")
                            : "Init:ExitCode:" + Trees.integer(terminated, "exitCode");
                } else {
                    reason = "Init:" + Trees.text(terminated, "reason");
                }
            } else if (waiting.isObject() && !Trees.text(waiting, "reason").isEmpty() && !Trees.text(waiting, "reason").equals("PodInitializing")) {
                reason = "Init:" + Trees.text(waiting, "reason");
            } else {
                reason = "Init:" + index + "/" + initContainerSpecs.size();
            }
            initializing = true;
            break;
        }

        if (!initializing || hasTrueCondition(status, "Initialized")) {
            restarts = restartableInitRestarts;
            lastRestart = lastRestartableInitRestart;
            boolean hasRunning = false;
            List<JsonNode> statuses = Trees.elements(status, "containerStatuses");
            for (int index = statuses.size() - 1; index >= 0; index--) {
                JsonNode container = statuses.get(index);
                restarts += (int) Trees.integer(container, "restartCount");
                lastRestart = later(lastRestart, lastFinished(container));
                JsonNode waiting = Trees.at(container, "state", "waiting");
                JsonNode terminated = Trees.at(container, "state", "terminated");
                if (waiting.isObject() && !Trees.text(waiting, "reason").isEmpty()) {
                    reason = Trees.text(waiting, "reason");
                } else if (terminated.isObject() && !Trees.text(terminated, "reason").isEmpty()) {
                    reason = Trees.text(terminated, "reason");
                } else if (terminated.isObject()) {
                    reason = Trees.integer(terminated, "signal") != 0
                            ? "Signal:" + Trees.integer(terminated, "signal")
                            : "ExitCode:" + Trees.integer(terminated, "exitCode");
                } else if (Trees.bool(container, "ready") && Trees.at(container, "state", "running").isObject()) {
                    hasRunning = true;
                    readyContainers++;
                }
            }
            // A pod whose last container completed while another still runs is not "Completed".
            if (reason.equals("Completed") && hasRunning) {
                reason = hasTrueCondition(status, "Ready") ? "Running" : "NotReady";
            }
        }

        boolean deleting = Trees.has(pod, "metadata", "deletionTimestamp");
        if (deleting && Trees.text(status, "reason").equals("NodeLost")) {
            reason = "Unknown";
        } else if (deleting && !phase.equals("Succeeded") && !phase.equals("Failed")) {
            reason = "Terminating";
        }

        String restartsCell = Integer.toString(restarts);
        if (restarts != 0 && lastRestart != null) {
            restartsCell = restarts + " (" + HumanDuration.format(java.time.Duration.between(lastRestart, now)) + " ago)";
        }

        List<Object> cells = new ArrayList<>();
        cells.add(Trees.text(pod, "metadata", "name"));
        cells.add(readyContainers + "/" + totalContainers);
        cells.add(reason);
        cells.add(restartsCell);
        cells.add(Printing.since(Trees.at(pod, "metadata", "creationTimestamp"), now));
        List<JsonNode> podIps = Trees.elements(status, "podIPs");
        String podIp = podIps.isEmpty() ? "" : Trees.text(podIps.get(0), "ip");
        cells.add(orNone(podIp));
        cells.add(orNone(Trees.text(spec, "nodeName")));
        cells.add(orNone(Trees.text(status, "nominatedNodeName")));
        cells.add(readinessGates(spec, status));
        return cells;
    }

    private static String readinessGates(JsonNode spec, JsonNode status) {
        List<JsonNode> gates = Trees.elements(spec, "readinessGates");
        if (gates.isEmpty()) {
            return Printing.NONE;
        }
        int trueConditions = 0;
        for (JsonNode gate : gates) {
            for (JsonNode condition : Trees.elements(status, "conditions")) {
                if (Trees.text(condition, "type").equals(Trees.text(gate, "conditionType"))) {
                    if (Trees.text(condition, "status").equals("True")) {
                        trueConditions++;
                    }
                    break;
                }
            }
        }
        return trueConditions + "/" + gates.size();
    }

    private static boolean isRestartable(JsonNode initContainer) {
        return initContainer != null && Trees.text(initContainer, "restartPolicy").equals("Always");
    }

    static boolean hasTrueCondition(JsonNode status, String type) {
        for (JsonNode condition : Trees.elements(status, "conditions")) {
            if (Trees.text(condition, "type").equals(type) && Trees.text(condition, "status").equals("True")) {
                return true;
            }
        }
        return false;
    }

    private static Instant lastFinished(JsonNode containerStatus) {
        String finishedAt = Trees.text(containerStatus, "lastState", "terminated", "finishedAt");
        if (finishedAt.isEmpty()) {
            return null;
        }
        try {
            return Instant.parse(finishedAt);
        } catch (java.time.format.DateTimeParseException e) {
            return null;
        }
    }

    private static Instant later(Instant current, Instant candidate) {
        if (candidate == null) {
            return current;
        }
        return current == null || current.isBefore(candidate) ? candidate : current;
    }

    private static String orNone(String value) {
        return value.isEmpty() ? Printing.NONE : value;
    }
}
