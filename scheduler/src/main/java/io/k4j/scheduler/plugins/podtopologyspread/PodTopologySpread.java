package io.k4j.scheduler.plugins.podtopologyspread;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.k4j.scheduler.framework.ActionType;
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
import io.k4j.scheduler.framework.Selectors;
import io.k4j.scheduler.framework.StateData;
import io.k4j.scheduler.framework.Status;
import io.k4j.scheduler.plugins.Names;
import io.k4j.scheduler.plugins.tainttoleration.Tolerations;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Spreads matching pods evenly over topology domains. Filter enforces the pod's DoNotSchedule constraints
 * (skew = matching pods in the node's domain + the pod itself − the global minimum must not exceed maxSkew); Score
 * prefers domains with fewer matching pods for ScheduleAnyway constraints, and, for pods without constraints, for the
 * cluster's default constraints over what selects the pod (services, replica sets, ...), as upstream. Thread-safe.
 */
public final class PodTopologySpread implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
    public static final String NAME = Names.POD_TOPOLOGY_SPREAD;
    public static final String REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints";
    public static final String REASON_NODE_LABEL_NOT_MATCH = REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)";
    private static final String PRE_FILTER_STATE_KEY = "PreFilter" + NAME;
    private static final String PRE_SCORE_STATE_KEY = "PreScore" + NAME;
    private static final String HOSTNAME = "kubernetes.io/hostname";

    /** Upstream's system default constraints. */
    public static final List<TopologySpreadConstraint> SYSTEM_DEFAULT_CONSTRAINTS = List.of(
            new io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder().withMaxSkew(3).withTopologyKey(HOSTNAME).withWhenUnsatisfiable("ScheduleAnyway").build(),
            new io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder().withMaxSkew(5).withTopologyKey("topology.kubernetes.io/zone").withWhenUnsatisfiable("ScheduleAnyway").build());

    private final FrameworkHandle handle;
    private final List<TopologySpreadConstraint> defaultConstraints;

    public PodTopologySpread(FrameworkHandle handle, List<TopologySpreadConstraint> defaultConstraints) {
        this.handle = requireNonNull(handle, "handle is null");
        this.defaultConstraints = List.copyOf(defaultConstraints);
    }

    /** Builds the plugin from its {@code PodTopologySpreadArgs} ({@code defaultingType} System or List). */
    public static PodTopologySpread fromArgs(JsonNode args, FrameworkHandle handle) {
        if (args == null || args.isNull()) {
            return new PodTopologySpread(handle, SYSTEM_DEFAULT_CONSTRAINTS);
        }
        String defaultingType = args.path("defaultingType").asText("System");
        JsonNode constraints = args.get("defaultConstraints");
        boolean hasConstraints = constraints != null && constraints.isArray() && !constraints.isEmpty();
        switch (defaultingType) {
            case "System" -> {
                if (hasConstraints) {
                    throw new IllegalArgumentException("defaultConstraints: Invalid value: when .defaultingType is \"System\", .defaultConstraints must be empty");
                }
                return new PodTopologySpread(handle, SYSTEM_DEFAULT_CONSTRAINTS);
            }
            case "List" -> {
                List<TopologySpreadConstraint> parsed = new ArrayList<>();
                if (hasConstraints) {
                    for (int i = 0; i < constraints.size(); i++) {
                        JsonNode constraint = constraints.get(i);
                        int maxSkew = constraint.path("maxSkew").asInt(0);
                        if (maxSkew <= 0) {
                            throw new IllegalArgumentException("defaultConstraints[" + i + "].maxSkew: Invalid value: " + maxSkew + ": must be greater than zero");
                        }
                        String topologyKey = constraint.path("topologyKey").asText("");
                        if (topologyKey.isEmpty()) {
                            throw new IllegalArgumentException("defaultConstraints[" + i + "].topologyKey: Required value: can not be empty");
                        }
                        String when = constraint.path("whenUnsatisfiable").asText("");
                        if (!when.equals("DoNotSchedule") && !when.equals("ScheduleAnyway")) {
                            throw new IllegalArgumentException("defaultConstraints[" + i + "].whenUnsatisfiable: Unsupported value: \"" + when + "\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"");
                        }
                        if (constraint.has("labelSelector")) {
                            throw new IllegalArgumentException("defaultConstraints[" + i + "].labelSelector: Forbidden: constraint must not define a selector, as they deduced for each pod");
                        }
                        parsed.add(new io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder().withMaxSkew(maxSkew)
                                .withTopologyKey(topologyKey).withWhenUnsatisfiable(when).build());
                    }
                }
                return new PodTopologySpread(handle, parsed);
            }
            default -> throw new IllegalArgumentException("defaultingType: Unsupported value: \"" + defaultingType + "\": supported values: \"List\", \"System\"");
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    /** The pod's constraints with the given {@code whenUnsatisfiable}, or the defaults when the pod has none. */
    private List<SpreadConstraint> constraints(PodInfo pod, String whenUnsatisfiable) {
        List<TopologySpreadConstraint> declared = pod.pod().getSpec().getTopologySpreadConstraints();
        List<SpreadConstraint> result = new ArrayList<>();
        if (declared != null && !declared.isEmpty()) {
            for (TopologySpreadConstraint constraint : declared) {
                if (whenUnsatisfiable.equals(constraint.getWhenUnsatisfiable())) {
                    result.add(parse(pod, constraint, selectorWithMatchLabelKeys(pod, constraint)));
                }
            }
            return result;
        }
        // Looking up what selects the pod costs listing services and workloads; skip it when no default applies.
        if (defaultConstraints.stream().noneMatch(constraint -> whenUnsatisfiable.equals(constraint.getWhenUnsatisfiable()))) {
            return result;
        }
        Optional<Predicate<Map<String, String>>> selector = handle.clusterView().defaultSpreadSelector(pod);
        if (selector.isEmpty()) {
            return result;
        }
        for (TopologySpreadConstraint constraint : defaultConstraints) {
            if (whenUnsatisfiable.equals(constraint.getWhenUnsatisfiable())) {
                result.add(parse(pod, constraint, selector.get()));
            }
        }
        return result;
    }

    private static Predicate<Map<String, String>> selectorWithMatchLabelKeys(PodInfo pod, TopologySpreadConstraint constraint) {
        io.fabric8.kubernetes.api.model.LabelSelector selector = constraint.getLabelSelector();
        if (selector == null) {
            return labels -> false;
        }
        List<String> matchLabelKeys = constraint.getMatchLabelKeys();
        if (matchLabelKeys != null && !matchLabelKeys.isEmpty()) {
            List<LabelSelectorRequirement> expressions = new ArrayList<>(selector.getMatchExpressions() == null ? List.of() : selector.getMatchExpressions());
            for (String key : matchLabelKeys) {
                String value = pod.labels().get(key);
                if (value != null) {
                    expressions.add(new LabelSelectorRequirement(key, "In", List.of(value)));
                }
            }
            selector = new io.fabric8.kubernetes.api.model.LabelSelector(expressions, selector.getMatchLabels());
        }
        return Selectors.labelSelector(selector);
    }

    private static SpreadConstraint parse(PodInfo pod, TopologySpreadConstraint constraint, Predicate<Map<String, String>> selector) {
        int minDomains = constraint.getMinDomains() == null ? 1 : constraint.getMinDomains();
        boolean honorAffinity = !"Ignore".equals(constraint.getNodeAffinityPolicy());
        boolean honorTaints = "Honor".equals(constraint.getNodeTaintsPolicy());
        return new SpreadConstraint(constraint.getMaxSkew() == null ? 1 : constraint.getMaxSkew(), constraint.getTopologyKey(), selector,
                minDomains, honorAffinity, honorTaints);
    }

    private static boolean nodeCounts(PodInfo pod, SpreadConstraint constraint, NodeInfo nodeInfo) {
        if (constraint.honorNodeAffinity() && !matchesNodeAffinity(pod, nodeInfo)) {
            return false;
        }
        if (constraint.honorNodeTaints()) {
            for (Taint taint : nodeInfo.taints()) {
                if (("NoSchedule".equals(taint.getEffect()) || "NoExecute".equals(taint.getEffect()))
                        && !Tolerations.tolerates(pod.pod().getSpec().getTolerations(), taint)) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean matchesNodeAffinity(PodInfo pod, NodeInfo nodeInfo) {
        Map<String, String> nodeSelector = pod.pod().getSpec().getNodeSelector();
        if (nodeSelector != null) {
            Map<String, String> labels = nodeInfo.labels();
            for (Map.Entry<String, String> entry : nodeSelector.entrySet()) {
                if (!entry.getValue().equals(labels.get(entry.getKey()))) {
                    return false;
                }
            }
        }
        Affinity affinity = pod.pod().getSpec().getAffinity();
        if (affinity != null && affinity.getNodeAffinity() != null && affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() != null) {
            return Selectors.matchesNodeSelector(affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution(), nodeInfo.node());
        }
        return true;
    }

    private static boolean hasAllKeys(List<SpreadConstraint> constraints, NodeInfo nodeInfo) {
        for (SpreadConstraint constraint : constraints) {
            if (nodeInfo.label(constraint.topologyKey()) == null) {
                return false;
            }
        }
        return true;
    }

    /**
     * Per node and constraint, in slot {@code nodeIndex * constraints + constraintIndex}: the node's domain for the
     * constraint's topology key and the pods there matching the constraint, or -1 where the node does not count for it.
     *
     * @param domains the node's value of the topology key, null when it has none
     * @param counts the matching pods, -1 when the node does not count
     */
    private record NodeCounts(String[] domains, int[] counts) {}

    /**
     * Counts the pods matching each constraint on each node. A node does not count for a constraint without a node
     * object, without the topology label (or, with {@code requireAllKeys}, without any of the constraints' labels), or
     * when the constraint's node inclusion policies leave it out. Counted over the nodes in parallel, as upstream does:
     * this walk over every pod of the cluster is most of a spread pod's scheduling cycle, so each node's labels are read
     * once here and the results kept for the caller.
     */
    private NodeCounts countPerNode(PodInfo pod, List<SpreadConstraint> constraints, List<NodeInfo> nodes, boolean requireAllKeys) {
        int constraintCount = constraints.size();
        String[] domains = new String[nodes.size() * constraintCount];
        int[] counts = new int[nodes.size() * constraintCount];
        handle.parallelizer().until(nodes.size(), index -> {
            NodeInfo nodeInfo = nodes.get(index);
            int base = index * constraintCount;
            boolean hasAllKeys = true;
            for (int i = 0; i < constraintCount; i++) {
                domains[base + i] = nodeInfo.label(constraints.get(i).topologyKey());
                hasAllKeys &= domains[base + i] != null;
            }
            boolean eligible = nodeInfo.node() != null && (hasAllKeys || !requireAllKeys);
            for (int i = 0; i < constraintCount; i++) {
                SpreadConstraint constraint = constraints.get(i);
                boolean countsHere = eligible && domains[base + i] != null && nodeCounts(pod, constraint, nodeInfo);
                counts[base + i] = countsHere ? countMatching(nodeInfo.pods(), constraint, pod.namespace()) : -1;
            }
        });
        return new NodeCounts(domains, counts);
    }

    private static int countMatching(List<PodInfo> pods, SpreadConstraint constraint, String namespace) {
        int count = 0;
        for (PodInfo existing : pods) {
            if (existing.namespace().equals(namespace) && !existing.isTerminating() && constraint.selector().test(existing.labels())) {
                count++;
            }
        }
        return count;
    }

    // --- filtering ---

    static final class PreFilterState implements StateData {
        final List<SpreadConstraint> constraints;
        final List<Map<String, Integer>> counts;

        PreFilterState(List<SpreadConstraint> constraints, List<Map<String, Integer>> counts) {
            this.constraints = constraints;
            this.counts = counts;
        }

        int minMatch(int index) {
            Map<String, Integer> domainCounts = counts.get(index);
            if (domainCounts.size() < constraints.get(index).minDomains()) {
                return 0;
            }
            int min = Integer.MAX_VALUE;
            for (int count : domainCounts.values()) {
                min = Math.min(min, count);
            }
            return min == Integer.MAX_VALUE ? 0 : min;
        }

        @Override
        public StateData copy() {
            List<Map<String, Integer>> copied = new ArrayList<>(counts.size());
            for (Map<String, Integer> domainCounts : counts) {
                copied.add(new HashMap<>(domainCounts));
            }
            return new PreFilterState(constraints, copied);
        }
    }

    @Override
    public Status preFilter(CycleState state, PodInfo pod, List<NodeInfo> nodes) {
        List<SpreadConstraint> constraints = constraints(pod, "DoNotSchedule");
        if (constraints.isEmpty()) {
            return Status.SKIP;
        }
        List<Map<String, Integer>> counts = new ArrayList<>(constraints.size());
        for (int i = 0; i < constraints.size(); i++) {
            counts.add(new HashMap<>());
        }
        NodeCounts perNode = countPerNode(pod, constraints, nodes, true);
        for (int slot = 0; slot < perNode.counts().length; slot++) {
            if (perNode.counts()[slot] >= 0) {
                counts.get(slot % constraints.size()).merge(perNode.domains()[slot], perNode.counts()[slot], Integer::sum);
            }
        }
        state.write(PRE_FILTER_STATE_KEY, new PreFilterState(List.copyOf(constraints), counts));
        return Status.SUCCESS;
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

    private Status update(CycleState state, PodInfo pod, PodInfo other, NodeInfo nodeInfo, int delta) {
        PreFilterState preFilterState = (PreFilterState) state.read(PRE_FILTER_STATE_KEY);
        if (preFilterState == null || nodeInfo.node() == null || !hasAllKeys(preFilterState.constraints, nodeInfo)
                || !other.namespace().equals(pod.namespace())) {
            return Status.SUCCESS;
        }
        for (int i = 0; i < preFilterState.constraints.size(); i++) {
            SpreadConstraint constraint = preFilterState.constraints.get(i);
            if (nodeCounts(pod, constraint, nodeInfo) && constraint.selector().test(other.labels())) {
                preFilterState.counts.get(i).merge(nodeInfo.label(constraint.topologyKey()), delta, Integer::sum);
            }
        }
        return Status.SUCCESS;
    }

    @Override
    public Status filter(CycleState state, PodInfo pod, NodeInfo nodeInfo) {
        PreFilterState preFilterState = (PreFilterState) state.read(PRE_FILTER_STATE_KEY);
        if (preFilterState == null) {
            return Status.SUCCESS;
        }
        for (int i = 0; i < preFilterState.constraints.size(); i++) {
            SpreadConstraint constraint = preFilterState.constraints.get(i);
            String value = nodeInfo.label(constraint.topologyKey());
            if (value == null) {
                return Status.unresolvable(REASON_NODE_LABEL_NOT_MATCH);
            }
            int selfMatch = constraint.selector().test(pod.labels()) ? 1 : 0;
            int matching = preFilterState.counts.get(i).getOrDefault(value, 0);
            int skew = matching + selfMatch - preFilterState.minMatch(i);
            if (skew > constraint.maxSkew()) {
                return Status.unschedulable(REASON_CONSTRAINTS_NOT_MATCH);
            }
        }
        return Status.SUCCESS;
    }

    // --- scoring ---

    private record PreScoreState(List<SpreadConstraint> constraints, Set<String> ignoredNodes, List<Map<String, Integer>> counts,
            double[] normalizingWeights) implements StateData {
        @Override
        public StateData copy() {
            return this;
        }
    }

    @Override
    public Status preScore(CycleState state, PodInfo pod, List<NodeInfo> nodes) {
        List<SpreadConstraint> constraints = constraints(pod, "ScheduleAnyway");
        if (constraints.isEmpty()) {
            return Status.SKIP;
        }
        boolean requireAllTopologies = pod.pod().getSpec().getTopologySpreadConstraints() != null && !pod.pod().getSpec().getTopologySpreadConstraints().isEmpty();
        Set<String> ignoredNodes = new HashSet<>();
        List<Set<String>> domainsPerConstraint = new ArrayList<>();
        for (int i = 0; i < constraints.size(); i++) {
            domainsPerConstraint.add(new HashSet<>());
        }
        for (NodeInfo nodeInfo : nodes) {
            if (requireAllTopologies && !hasAllKeys(constraints, nodeInfo)) {
                ignoredNodes.add(nodeInfo.name());
                continue;
            }
            for (int i = 0; i < constraints.size(); i++) {
                String value = nodeInfo.label(constraints.get(i).topologyKey());
                if (value != null) {
                    domainsPerConstraint.get(i).add(value);
                }
            }
        }
        List<Map<String, Integer>> counts = new ArrayList<>();
        double[] weights = new double[constraints.size()];
        for (int i = 0; i < constraints.size(); i++) {
            counts.add(new HashMap<>());
            int size = domainsPerConstraint.get(i).size();
            weights[i] = Math.log(size + 2);
        }
        // Counts come from all nodes, not only the feasible ones: a domain's load includes nodes the pod cannot use.
        List<NodeInfo> allNodes = handle.snapshot().list();
        NodeCounts perNode = countPerNode(pod, constraints, allNodes, requireAllTopologies);
        for (int slot = 0; slot < perNode.counts().length; slot++) {
            int count = perNode.counts()[slot];
            String value = perNode.domains()[slot];
            if (count > 0 && domainsPerConstraint.get(slot % constraints.size()).contains(value)) {
                counts.get(slot % constraints.size()).merge(value, count, Integer::sum);
            }
        }
        state.write(PRE_SCORE_STATE_KEY, new PreScoreState(List.copyOf(constraints), ignoredNodes, counts, weights));
        return Status.SUCCESS;
    }

    @Override
    public long score(CycleState state, PodInfo pod, NodeInfo nodeInfo) {
        PreScoreState preScoreState = (PreScoreState) state.read(PRE_SCORE_STATE_KEY);
        if (preScoreState == null || preScoreState.ignoredNodes().contains(nodeInfo.name())) {
            return 0;
        }
        double score = 0;
        for (int i = 0; i < preScoreState.constraints().size(); i++) {
            SpreadConstraint constraint = preScoreState.constraints().get(i);
            String value = nodeInfo.label(constraint.topologyKey());
            if (value == null) {
                continue;
            }
            int count = preScoreState.counts().get(i).getOrDefault(value, 0);
            score += count * preScoreState.normalizingWeights()[i] + (constraint.maxSkew() - 1);
        }
        return Math.round(score);
    }

    @Override
    public void normalizeScores(CycleState state, PodInfo pod, List<NodeInfo> nodes, long[] scores) {
        PreScoreState preScoreState = (PreScoreState) state.read(PRE_SCORE_STATE_KEY);
        if (preScoreState == null) {
            return;
        }
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int i = 0; i < scores.length; i++) {
            if (preScoreState.ignoredNodes().contains(nodes.get(i).name())) {
                continue;
            }
            min = Math.min(min, scores[i]);
            max = Math.max(max, scores[i]);
        }
        for (int i = 0; i < scores.length; i++) {
            if (preScoreState.ignoredNodes().contains(nodes.get(i).name())) {
                scores[i] = 0;
            } else if (max == 0) {
                scores[i] = MAX_NODE_SCORE;
            } else {
                scores[i] = MAX_NODE_SCORE * (max + min - scores[i]) / max;
            }
        }
    }

    @Override
    public List<ClusterEvent> eventsToRegister() {
        return List.of(
                new ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ALL, "AssignedPodChange"),
                new ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.DELETE | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_TAINT, "NodeChange"),
                new ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.UPDATE_POD_LABEL | ActionType.UPDATE_POD_OTHER, "PodUpdate"));
    }
}
