package io.k4j.scheduler.framework;

import java.util.List;

/**
 * Remembers which pods are nominated to which node (after preemption), so that filters account for the room their
 * victims free for them. Implementations are thread-safe.
 */
public interface PodNominator {
    /** Nominates the pod to {@code nodeName}, or to its status's nominatedNodeName when {@code nodeName} is empty. */
    void addNominatedPod(PodInfo pod, String nodeName);

    void deleteNominatedPodIfExists(PodInfo pod);

    /** The pods nominated to a node, highest priority first is not guaranteed. */
    List<PodInfo> nominatedPodsForNode(String nodeName);
}
