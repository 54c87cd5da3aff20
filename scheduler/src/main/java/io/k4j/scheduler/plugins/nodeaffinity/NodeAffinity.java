package io.k4j.scheduler.plugins.nodeaffinity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.PreferredSchedulingTerm;
import io.k4j.scheduler.framework.ActionType;
import io.k4j.scheduler.framework.ClusterEvent;
import io.k4j.scheduler.framework.CycleState;
import io.k4j.scheduler.framework.EnqueueExtensions;
import io.k4j.scheduler.framework.EventResource;
import io.k4j.scheduler.framework.FilterPlugin;
import io.k4j.scheduler.framework.NodeInfo;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.PreFilterPlugin;
import io.k4j.scheduler.framework.PreFilterResult;
import io.k4j.scheduler.framework.PreScorePlugin;
import io.k4j.scheduler.framework.ScorePlugin;
import io.k4j.scheduler.framework.Selectors;
import io.k4j.scheduler.framework.StateData;
import io.k4j.scheduler.framework.Status;
import io.k4j.scheduler.plugins.Names;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Filters nodes by the pod's {@code nodeSelector} and required node affinity (and the profile's {@code addedAffinity}),
 * and scores them by the weights of the preferred terms they match. A required term that selects nodes by
 * {@code metadata.name} narrows the nodes to filter already in PreFilter, as upstream. Thread-safe.
 */
public final class NodeAffinity implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
    public static final String NAME = Names.NODE_AFFINITY;
    public static final String REASON_POD = "node(s) didn't match Pod's node affinity/selector";
    public static final String REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity";
    private static final String PRE_FILTER_STATE_KEY = "PreFilter" + NAME;
    private static final String PRE_SCORE_STATE_KEY = "PreScore" + NAME;

    private final io.fabric8.kubernetes.api.model.NodeAffinity addedAffinity;

    private record PreFilterState(Map<String, String> nodeSelector, NodeSelector required, PreFilterResult result) implements StateData {
        @Override
        public StateData copy() {
            return this;
        }
    }

    private record PreScoreState(List<PreferredSchedulingTerm> preferred) implements StateData {
        @Override
        public StateData copy() {
            return this;
        }
    }

    public NodeAffinity(io.fabric8.kubernetes.api.model.NodeAffinity addedAffinity) {
        this.addedAffinity = addedAffinity;
    }

    /** Builds the plugin from its {@code NodeAffinityArgs}. */
    public static NodeAffinity fromArgs(JsonNode args) {
        if (args == null || !args.has("addedAffinity") || args.get("addedAffinity").isNull()) {
            return new NodeAffinity(null);
        }
        try {
            return new NodeAffinity(new ObjectMapper().treeToValue(args.get("addedAffinity"), io.fabric8.kubernetes.api.model.NodeAffinity.class));
        } catch (com.fasterxml.jackson.core.JsonProcessingException | IllegalArgumentException e) {
            throw new IllegalArgumentException("addedAffinity: Invalid value: " + e.getMessage(), e);
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Status preFilter(CycleState state, PodInfo pod, List<NodeInfo> nodes) {
        Map<String, String> nodeSelector = pod.pod().getSpec().getNodeSelector();
        Affinity affinity = pod.pod().getSpec().getAffinity();
        NodeSelector required = affinity == null || affinity.getNodeAffinity() == null ? null
                : affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
        boolean noSelector = nodeSelector == null || nodeSelector.isEmpty();
        if (noSelector && required == null && addedAffinity == null) {
            return Status.SKIP;
        }
        PreFilterResult result = PreFilterResult.ALL_NODES;
        if (required != null && required.getNodeSelectorTerms() != null) {
            result = nodeNamesFromTerms(required.getNodeSelectorTerms());
            if (result.nodeNames() != null && result.nodeNames().isEmpty()) {
                return Status.unresolvable(REASON_POD);
            }
        }
        state.write(PRE_FILTER_STATE_KEY, new PreFilterState(noSelector ? Map.of() : Map.copyOf(nodeSelector), required, result));
        return Status.SUCCESS;
    }

    /**
     * The node names every term pins to with {@code metadata.name In}; all nodes when any term does not pin.
     */
    private static PreFilterResult nodeNamesFromTerms(List<NodeSelectorTerm> terms) {
        Set<String> names = null;
        for (NodeSelectorTerm term : terms) {
            Set<String> termNames = null;
            if (term.getMatchFields() != null) {
                for (NodeSelectorRequirement field : term.getMatchFields()) {
                    if ("metadata.name".equals(field.getKey()) && "In".equals(field.getOperator()) && field.getValues() != null) {
                        Set<String> values = new HashSet<>(field.getValues());
                        if (termNames == null) {
                            termNames = values;
                        } else {
                            termNames.retainAll(values);
                        }
                    }
                }
            }
            if (termNames == null) {
                return PreFilterResult.ALL_NODES;
            }
            if (names == null) {
                names = new HashSet<>();
            }
            names.addAll(termNames);
        }
        return names == null ? PreFilterResult.ALL_NODES : new PreFilterResult(names);
    }

    @Override
    public PreFilterResult preFilterResult(CycleState state, PodInfo pod) {
        PreFilterState preFilterState = (PreFilterState) state.read(PRE_FILTER_STATE_KEY);
        return preFilterState == null ? PreFilterResult.ALL_NODES : preFilterState.result();
    }

    @Override
    public Status filter(CycleState state, PodInfo pod, NodeInfo nodeInfo) {
        Node node = nodeInfo.node();
        if (addedAffinity != null && addedAffinity.getRequiredDuringSchedulingIgnoredDuringExecution() != null
                && !Selectors.matchesNodeSelector(addedAffinity.getRequiredDuringSchedulingIgnoredDuringExecution(), node)) {
            return Status.unresolvable(REASON_ENFORCED);
        }
        PreFilterState preFilterState = (PreFilterState) state.read(PRE_FILTER_STATE_KEY);
        if (preFilterState == null) {
            preFilterState = new PreFilterState(pod.pod().getSpec().getNodeSelector() == null ? Map.of() : pod.pod().getSpec().getNodeSelector(),
                    requiredOf(pod), PreFilterResult.ALL_NODES);
        }
        Map<String, String> labels = nodeInfo.labels();
        for (Map.Entry<String, String> entry : preFilterState.nodeSelector().entrySet()) {
            if (!entry.getValue().equals(labels.get(entry.getKey()))) {
                return Status.unresolvable(REASON_POD);
            }
        }
        if (preFilterState.required() != null && !Selectors.matchesNodeSelector(preFilterState.required(), node)) {
            return Status.unresolvable(REASON_POD);
        }
        return Status.SUCCESS;
    }

    private static NodeSelector requiredOf(PodInfo pod) {
        Affinity affinity = pod.pod().getSpec().getAffinity();
        return affinity == null || affinity.getNodeAffinity() == null ? null : affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
    }

    @Override
    public Status preScore(CycleState state, PodInfo pod, List<NodeInfo> nodes) {
        Affinity affinity = pod.pod().getSpec().getAffinity();
        List<PreferredSchedulingTerm> preferred = affinity == null || affinity.getNodeAffinity() == null ? null
                : affinity.getNodeAffinity().getPreferredDuringSchedulingIgnoredDuringExecution();
        List<PreferredSchedulingTerm> added = addedAffinity == null ? null : addedAffinity.getPreferredDuringSchedulingIgnoredDuringExecution();
        if ((preferred == null || preferred.isEmpty()) && (added == null || added.isEmpty())) {
            return Status.SKIP;
        }
        List<PreferredSchedulingTerm> all = new java.util.ArrayList<>();
        if (preferred != null) {
            all.addAll(preferred);
        }
        if (added != null) {
            all.addAll(added);
        }
        state.write(PRE_SCORE_STATE_KEY, new PreScoreState(List.copyOf(all)));
        return Status.SUCCESS;
    }

    @Override
    public long score(CycleState state, PodInfo pod, NodeInfo nodeInfo) {
        PreScoreState preScoreState = (PreScoreState) state.read(PRE_SCORE_STATE_KEY);
        if (preScoreState == null) {
            return 0;
        }
        long score = 0;
        for (PreferredSchedulingTerm term : preScoreState.preferred()) {
            int weight = term.getWeight() == null ? 0 : term.getWeight();
            if (weight != 0 && Selectors.matchesNodeSelectorTerm(term.getPreference(), nodeInfo.node())) {
                score += weight;
            }
        }
        return score;
    }

    @Override
    public void normalizeScores(CycleState state, PodInfo pod, List<NodeInfo> nodes, long[] scores) {
        ScorePlugin.defaultNormalize(MAX_NODE_SCORE, false, scores);
    }

    @Override
    public List<ClusterEvent> eventsToRegister() {
        return List.of(new ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL, "NodeAddOrLabelChange"),
                new ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.UPDATE_POD_OTHER, "PodUpdate"));
    }
}
