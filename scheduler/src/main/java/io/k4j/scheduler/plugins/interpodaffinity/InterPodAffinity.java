package io.k4j.scheduler.plugins.interpodaffinity;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.k4j.scheduler.framework.ActionType;
import io.k4j.scheduler.framework.AffinityTerm;
import io.k4j.scheduler.framework.ClusterEvent;
import io.k4j.scheduler.framework.CycleState;
import io.k4j.scheduler.framework.EnqueueExtensions;
import io.k4j.scheduler.framework.EventResource;
import io.k4j.scheduler.framework.FilterPlugin;
import io.k4j.scheduler.framework.FrameworkHandle;
import io.k4j.scheduler.framework.NodeInfo;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.PreFilterPlugin;
import io.k4j.scheduler.framework.PreScorePlugin;
import io.k4j.scheduler.framework.ScorePlugin;
import io.k4j.scheduler.framework.StateData;
import io.k4j.scheduler.framework.Status;
import io.k4j.scheduler.plugins.Names;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Pod affinity and anti-affinity. Filter: the pod's required affinity terms must find matching pods in the node's
 * topology domain, its required anti-affinity terms must find none, and no existing pod's required anti-affinity may
 * match the pod in that domain. Score: preferred terms of the pod and of existing pods (and existing pods' required
 * affinity, weighted by {@code hardPodAffinityWeight}) add or subtract their weights per domain. Counting happens once
 * in PreFilter/PreScore per topology domain, as upstream. Thread-safe.
 */
public final class InterPodAffinity implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
    public static final String NAME = Names.INTER_POD_AFFINITY;
    public static final String REASON_AFFINITY = "node(s) didn't match pod affinity rules";
    public static final String REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules";
    public static final String REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules";
    private static final String PRE_FILTER_STATE_KEY = "PreFilter" + NAME;
    private static final String PRE_SCORE_STATE_KEY = "PreScore" + NAME;

    private final FrameworkHandle handle;
    private final int hardPodAffinityWeight;
    private final boolean ignorePreferredTermsOfExistingPods;

    public InterPodAffinity(FrameworkHandle handle, int hardPodAffinityWeight, boolean ignorePreferredTermsOfExistingPods) {
        this.handle = requireNonNull(handle, "handle is null");
        if (hardPodAffinityWeight < 0 || hardPodAffinityWeight > 100) {
            throw new IllegalArgumentException("hardPodAffinityWeight: Invalid value: " + hardPodAffinityWeight + ": not in valid range [0-100]");
        }
        this.hardPodAffinityWeight = hardPodAffinityWeight;
        this.ignorePreferredTermsOfExistingPods = ignorePreferredTermsOfExistingPods;
    }

    /** Builds the plugin from its {@code InterPodAffinityArgs}. */
    public static InterPodAffinity fromArgs(JsonNode args, FrameworkHandle handle) {
        int weight = args == null ? 1 : args.path("hardPodAffinityWeight").asInt(1);
        boolean ignorePreferred = args != null && args.path("ignorePreferredTermsOfExistingPods").asBoolean(false);
        return new InterPodAffinity(handle, weight, ignorePreferred);
    }

    @Override
    public String name() {
        return NAME;
    }

    static final class PreFilterState implements StateData {
        final Map<TopologyPair, Long> existingAntiAffinityCounts;
        final Map<TopologyPair, Long> affinityCounts;
        final Map<TopologyPair, Long> antiAffinityCounts;

        PreFilterState(Map<TopologyPair, Long> existingAntiAffinityCounts, Map<TopologyPair, Long> affinityCounts, Map<TopologyPair, Long> antiAffinityCounts) {
            this.existingAntiAffinityCounts = existingAntiAffinityCounts;
            this.affinityCounts = affinityCounts;
            this.antiAffinityCounts = antiAffinityCounts;
        }

        @Override
        public StateData copy() {
            return new PreFilterState(new HashMap<>(existingAntiAffinityCounts), new HashMap<>(affinityCounts), new HashMap<>(antiAffinityCounts));
        }
    }

    private boolean termMatches(AffinityTerm term, PodInfo pod) {
        Map<String, String> namespaceLabels = term.namespaceSelector() == null ? Map.of() : handle.clusterView().namespaceLabels(pod.namespace());
        return term.matches(pod, namespaceLabels);
    }

    private boolean matchesAllTerms(List<AffinityTerm> terms, PodInfo pod) {
        if (terms.isEmpty()) {
            return false;
        }
        for (AffinityTerm term : terms) {
            if (!termMatches(term, pod)) {
                return false;
            }
        }
        return true;
    }

    private static void increment(Map<TopologyPair, Long> counts, String key, NodeInfo nodeInfo, long delta) {
        String value = nodeInfo.label(key);
        if (value == null) {
            return;
        }
        TopologyPair pair = new TopologyPair(key, value);
        long updated = counts.getOrDefault(pair, 0L) + delta;
        if (updated == 0) {
            counts.remove(pair);
        } else {
            counts.put(pair, updated);
        }
    }

    @Override
    public Status preFilter(CycleState state, PodInfo pod, List<NodeInfo> nodes) {
        List<NodeInfo> withAntiAffinity = handle.snapshot().havePodsWithRequiredAntiAffinity();
        boolean podHasRequired = !pod.requiredAffinityTerms().isEmpty() || !pod.requiredAntiAffinityTerms().isEmpty();
        if (!podHasRequired && withAntiAffinity.isEmpty()) {
            return Status.SKIP;
        }
        PreFilterState preFilterState = new PreFilterState(new HashMap<>(), new HashMap<>(), new HashMap<>());
        for (NodeInfo nodeInfo : withAntiAffinity) {
            if (nodeInfo.node() == null) {
                continue;
            }
            for (PodInfo existing : nodeInfo.podsWithRequiredAntiAffinity()) {
                countExistingAntiAffinity(preFilterState, pod, existing, nodeInfo, 1);
            }
        }
        if (podHasRequired) {
            countIncomingTerms(preFilterState, pod, nodes);
        }
        state.write(PRE_FILTER_STATE_KEY, preFilterState);
        return Status.SUCCESS;
    }

    private void countExistingAntiAffinity(PreFilterState state, PodInfo pod, PodInfo existing, NodeInfo nodeInfo, long delta) {
        for (AffinityTerm term : existing.requiredAntiAffinityTerms()) {
            if (termMatches(term, pod)) {
                increment(state.existingAntiAffinityCounts, term.topologyKey(), nodeInfo, delta);
            }
        }
    }

    /**
     * Counts, per topology domain, the existing pods that the pod's required terms match. Every pod of the cluster is
     * looked at, so the nodes are walked in parallel (as upstream does) and the per-node counts added up afterwards.
     */
    private void countIncomingTerms(PreFilterState state, PodInfo pod, List<NodeInfo> nodes) {
        List<AffinityTerm> affinityTerms = pod.requiredAffinityTerms();
        List<AffinityTerm> antiAffinityTerms = pod.requiredAntiAffinityTerms();
        // Per node: the pods matching all affinity terms, then the pods matching each anti-affinity term.
        int width = 1 + antiAffinityTerms.size();
        long[] perNode = new long[nodes.size() * width];
        handle.parallelizer().until(nodes.size(), index -> {
            NodeInfo nodeInfo = nodes.get(index);
            if (nodeInfo.node() == null) {
                return;
            }
            for (PodInfo existing : nodeInfo.pods()) {
                if (matchesAllTerms(affinityTerms, existing)) {
                    perNode[index * width]++;
                }
                for (int term = 0; term < antiAffinityTerms.size(); term++) {
                    if (termMatches(antiAffinityTerms.get(term), existing)) {
                        perNode[index * width + 1 + term]++;
                    }
                }
            }
        });
        for (int index = 0; index < nodes.size(); index++) {
            NodeInfo nodeInfo = nodes.get(index);
            long affinityMatches = perNode[index * width];
            if (affinityMatches > 0) {
                for (AffinityTerm term : affinityTerms) {
                    increment(state.affinityCounts, term.topologyKey(), nodeInfo, affinityMatches);
                }
            }
            for (int term = 0; term < antiAffinityTerms.size(); term++) {
                long antiAffinityMatches = perNode[index * width + 1 + term];
                if (antiAffinityMatches > 0) {
                    increment(state.antiAffinityCounts, antiAffinityTerms.get(term).topologyKey(), nodeInfo, antiAffinityMatches);
                }
            }
        }
    }

    private void countIncomingTerms(PreFilterState state, PodInfo pod, PodInfo existing, NodeInfo nodeInfo, long delta) {
        if (matchesAllTerms(pod.requiredAffinityTerms(), existing)) {
            for (AffinityTerm term : pod.requiredAffinityTerms()) {
                increment(state.affinityCounts, term.topologyKey(), nodeInfo, delta);
            }
        }
        for (AffinityTerm term : pod.requiredAntiAffinityTerms()) {
            if (termMatches(term, existing)) {
                increment(state.antiAffinityCounts, term.topologyKey(), nodeInfo, delta);
            }
        }
    }

    @Override
    public PreFilterExtensions preFilterExtensions() {
        return new PreFilterExtensions() {
            @Override
            public Status addPod(CycleState state, PodInfo podToSchedule, PodInfo podToAdd, NodeInfo nodeInfo) {
                return update(state, podToSchedule, podToAdd, nodeInfo, 1);
            }

            @Override
            public Status removePod(CycleState state, PodInfo podToSchedule, PodInfo podToRemove, NodeInfo nodeInfo) {
                return update(state, podToSchedule, podToRemove, nodeInfo, -1);
            }
        };
    }

    private Status update(CycleState state, PodInfo podToSchedule, PodInfo other, NodeInfo nodeInfo, long delta) {
        PreFilterState preFilterState = (PreFilterState) state.read(PRE_FILTER_STATE_KEY);
        if (preFilterState == null) {
            return Status.SUCCESS;
        }
        countExistingAntiAffinity(preFilterState, podToSchedule, other, nodeInfo, delta);
        countIncomingTerms(preFilterState, podToSchedule, other, nodeInfo, delta);
        return Status.SUCCESS;
    }

    @Override
    public Status filter(CycleState state, PodInfo pod, NodeInfo nodeInfo) {
        PreFilterState preFilterState = (PreFilterState) state.read(PRE_FILTER_STATE_KEY);
        if (preFilterState == null) {
            return Status.SUCCESS;
        }
        if (!satisfyPodAffinity(preFilterState, pod, nodeInfo)) {
            return Status.unresolvable(REASON_AFFINITY);
        }
        for (AffinityTerm term : pod.requiredAntiAffinityTerms()) {
            String value = nodeInfo.label(term.topologyKey());
            if (value != null && preFilterState.antiAffinityCounts.getOrDefault(new TopologyPair(term.topologyKey(), value), 0L) > 0) {
                return Status.unschedulable(REASON_ANTI_AFFINITY);
            }
        }
        if (!preFilterState.existingAntiAffinityCounts.isEmpty()) {
            for (Map.Entry<String, String> label : nodeInfo.labels().entrySet()) {
                if (preFilterState.existingAntiAffinityCounts.getOrDefault(new TopologyPair(label.getKey(), label.getValue()), 0L) > 0) {
                    return Status.unschedulable(REASON_EXISTING_ANTI_AFFINITY);
                }
            }
        }
        return Status.SUCCESS;
    }

    private boolean satisfyPodAffinity(PreFilterState state, PodInfo pod, NodeInfo nodeInfo) {
        boolean podsExist = true;
        for (AffinityTerm term : pod.requiredAffinityTerms()) {
            String value = nodeInfo.label(term.topologyKey());
            if (value == null) {
                return false;
            }
            if (state.affinityCounts.getOrDefault(new TopologyPair(term.topologyKey(), value), 0L) <= 0) {
                podsExist = false;
            }
        }
        if (!podsExist) {
            // The first pod of a group with affinity to itself must be able to start the group.
            return state.affinityCounts.isEmpty() && matchesAllTerms(pod.requiredAffinityTerms(), pod);
        }
        return true;
    }

    // --- scoring ---

    private record PreScoreState(Map<TopologyPair, Long> topologyScore) implements StateData {
        @Override
        public StateData copy() {
            return new PreScoreState(new HashMap<>(topologyScore));
        }
    }

    @Override
    public Status preScore(CycleState state, PodInfo pod, List<NodeInfo> nodes) {
        boolean hasPreferred = !pod.preferredAffinityTerms().isEmpty() || !pod.preferredAntiAffinityTerms().isEmpty();
        List<NodeInfo> candidates = hasPreferred ? handle.snapshot().list() : handle.snapshot().havePodsWithAffinity();
        if (!hasPreferred && candidates.isEmpty()) {
            return Status.SKIP;
        }
        Map<TopologyPair, Long> scores = new HashMap<>();
        for (NodeInfo nodeInfo : candidates) {
            if (nodeInfo.node() == null) {
                continue;
            }
            List<PodInfo> existingPods = hasPreferred ? nodeInfo.pods() : nodeInfo.podsWithAffinity();
            for (PodInfo existing : existingPods) {
                processExistingPod(scores, pod, existing, nodeInfo);
            }
        }
        if (scores.isEmpty()) {
            return Status.SKIP;
        }
        state.write(PRE_SCORE_STATE_KEY, new PreScoreState(scores));
        return Status.SUCCESS;
    }

    private void processExistingPod(Map<TopologyPair, Long> scores, PodInfo pod, PodInfo existing, NodeInfo nodeInfo) {
        for (AffinityTerm term : pod.preferredAffinityTerms()) {
            if (termMatches(term, existing)) {
                increment(scores, term.topologyKey(), nodeInfo, term.weight());
            }
        }
        for (AffinityTerm term : pod.preferredAntiAffinityTerms()) {
            if (termMatches(term, existing)) {
                increment(scores, term.topologyKey(), nodeInfo, -term.weight());
            }
        }
        if (hardPodAffinityWeight > 0) {
            for (AffinityTerm term : existing.requiredAffinityTerms()) {
                if (termMatches(term, pod)) {
                    increment(scores, term.topologyKey(), nodeInfo, hardPodAffinityWeight);
                }
            }
        }
        if (ignorePreferredTermsOfExistingPods) {
            return;
        }
        for (AffinityTerm term : existing.preferredAffinityTerms()) {
            if (termMatches(term, pod)) {
                increment(scores, term.topologyKey(), nodeInfo, term.weight());
            }
        }
        for (AffinityTerm term : existing.preferredAntiAffinityTerms()) {
            if (termMatches(term, pod)) {
                increment(scores, term.topologyKey(), nodeInfo, -term.weight());
            }
        }
    }

    @Override
    public long score(CycleState state, PodInfo pod, NodeInfo nodeInfo) {
        PreScoreState preScoreState = (PreScoreState) state.read(PRE_SCORE_STATE_KEY);
        if (preScoreState == null) {
            return 0;
        }
        long score = 0;
        for (Map.Entry<TopologyPair, Long> entry : preScoreState.topologyScore().entrySet()) {
            if (entry.getKey().value().equals(nodeInfo.label(entry.getKey().key()))) {
                score += entry.getValue();
            }
        }
        return score;
    }

    @Override
    public void normalizeScores(CycleState state, PodInfo pod, List<NodeInfo> nodes, long[] scores) {
        if (scores.length == 0) {
            return;
        }
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (long score : scores) {
            min = Math.min(min, score);
            max = Math.max(max, score);
        }
        long difference = max - min;
        for (int i = 0; i < scores.length; i++) {
            scores[i] = difference > 0 ? MAX_NODE_SCORE * (scores[i] - min) / difference : 0;
        }
    }

    @Override
    public List<ClusterEvent> eventsToRegister() {
        return List.of(
                new ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ALL, "AssignedPodChange"),
                new ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL, "NodeAddOrLabelChange"),
                new ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.UPDATE_POD_LABEL | ActionType.UPDATE_POD_OTHER, "PodUpdate"));
    }
}
