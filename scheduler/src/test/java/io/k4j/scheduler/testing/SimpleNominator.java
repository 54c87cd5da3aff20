package io.k4j.scheduler.testing;

import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.PodNominator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A nominator backed by a map, for plugin tests that run without a queue. Thread-safe. */
public final class SimpleNominator implements PodNominator {
    private final Map<String, List<PodInfo>> byNode = new HashMap<>();

    @Override
    public synchronized void addNominatedPod(PodInfo pod, String nodeName) {
        deleteNominatedPodIfExists(pod);
        byNode.computeIfAbsent(nodeName, ignored -> new ArrayList<>()).add(pod);
    }

    @Override
    public synchronized void deleteNominatedPodIfExists(PodInfo pod) {
        byNode.values().forEach(pods -> pods.removeIf(nominated -> nominated.uid().equals(pod.uid())));
    }

    @Override
    public synchronized List<PodInfo> nominatedPodsForNode(String nodeName) {
        return List.copyOf(byNode.getOrDefault(nodeName, List.of()));
    }
}
