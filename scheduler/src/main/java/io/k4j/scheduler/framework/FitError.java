package io.k4j.scheduler.framework;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * No node fits a pod. {@link #message()} is upstream's aggregated text, e.g.
 * {@code 0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint {a: b}. preemption: ...}.
 * Not thread-safe.
 */
public final class FitError {
    private final PodInfo pod;
    private final int numAllNodes;
    private final Diagnosis diagnosis;

    public FitError(PodInfo pod, int numAllNodes, Diagnosis diagnosis) {
        this.pod = requireNonNull(pod, "pod is null");
        this.numAllNodes = numAllNodes;
        this.diagnosis = requireNonNull(diagnosis, "diagnosis is null");
    }

    public PodInfo pod() {
        return pod;
    }

    public int numAllNodes() {
        return numAllNodes;
    }

    public Diagnosis diagnosis() {
        return diagnosis;
    }

    /**
     * The message: the PreFilter message if PreFilter rejected, else a sorted histogram of the filter reasons over
     * all nodes, then the PostFilter message.
     */
    public String message() {
        StringBuilder message = new StringBuilder("0/").append(numAllNodes).append(" nodes are available:");
        String preFilterMessage = diagnosis.preFilterMessage();
        if (!preFilterMessage.isEmpty()) {
            message.append(' ').append(preFilterMessage).append('.');
        } else {
            Map<String, Integer> reasons = new HashMap<>();
            NodeToStatus statuses = diagnosis.nodeToStatus();
            statuses.forEachExplicit((node, status) -> {
                for (String reason : status.reasons()) {
                    reasons.merge(reason, 1, Integer::sum);
                }
            });
            if (statuses.size() < numAllNodes) {
                for (String reason : statuses.absentNodesStatus().reasons()) {
                    reasons.merge(reason, numAllNodes - statuses.size(), Integer::sum);
                }
            }
            List<String> histogram = new ArrayList<>(reasons.size());
            reasons.forEach((reason, count) -> histogram.add(count + " " + reason));
            histogram.sort(null);
            if (!histogram.isEmpty()) {
                message.append(' ').append(String.join(", ", histogram)).append('.');
            }
        }
        String postFilterMessage = diagnosis.postFilterMessage();
        if (!postFilterMessage.isEmpty()) {
            message.append(' ').append(postFilterMessage);
        }
        return message.toString();
    }

    @Override
    public String toString() {
        return message();
    }
}
