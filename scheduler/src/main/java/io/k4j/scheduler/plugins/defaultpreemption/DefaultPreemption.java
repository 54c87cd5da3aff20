package io.k4j.scheduler.plugins.defaultpreemption;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.k4j.scheduler.framework.Code;
import io.k4j.scheduler.framework.CycleState;
import io.k4j.scheduler.framework.Diagnosis;
import io.k4j.scheduler.framework.FitError;
import io.k4j.scheduler.framework.FrameworkHandle;
import io.k4j.scheduler.framework.NodeInfo;
import io.k4j.scheduler.framework.NodeToStatus;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.PostFilterPlugin;
import io.k4j.scheduler.framework.PostFilterResult;
import io.k4j.scheduler.framework.Selectors;
import io.k4j.scheduler.framework.Status;
import io.k4j.scheduler.plugins.Names;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Preemption as a PostFilter: when no node fits a pod, find nodes where evicting lower-priority pods would make it
 * fit, choose the node whose victims matter least (fewest PodDisruptionBudget violations, then lowest highest victim
 * priority, smallest priority sum, fewest victims, latest start), delete the victims and nominate the node. Victims are
 * the minimal set: on each node all lower-priority pods are removed and then added back, most important first,
 * while the pod still fits, PDB-violating pods getting the first chance to stay. Thread-safe.
 */
public final class DefaultPreemption implements PostFilterPlugin {
    public static final String NAME = Names.DEFAULT_PREEMPTION;
    public static final String REASON_NOT_HELPFUL = "Preemption is not helpful for scheduling";
    public static final String REASON_NO_VICTIMS = "No preemption victims found for incoming pod";
    private static final Logger LOG = LoggerFactory.getLogger(DefaultPreemption.class);

    private final FrameworkHandle handle;
    private final int minCandidateNodesPercentage;
    private final int minCandidateNodesAbsolute;

    public DefaultPreemption(FrameworkHandle handle, int minCandidateNodesPercentage, int minCandidateNodesAbsolute) {
        this.handle = requireNonNull(handle, "handle is null");
        if (minCandidateNodesPercentage < 0 || minCandidateNodesPercentage > 100) {
            throw new IllegalArgumentException("minCandidateNodesPercentage: Invalid value: " + minCandidateNodesPercentage + ": not in valid range [0, 100]");
        }
        if (minCandidateNodesAbsolute < 0) {
            throw new IllegalArgumentException("minCandidateNodesAbsolute: Invalid value: " + minCandidateNodesAbsolute + ": not in valid range [0, inf)");
        }
        if (minCandidateNodesPercentage == 0 && minCandidateNodesAbsolute == 0) {
            throw new IllegalArgumentException("minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute");
        }
        this.minCandidateNodesPercentage = minCandidateNodesPercentage;
        this.minCandidateNodesAbsolute = minCandidateNodesAbsolute;
    }

    /** Builds the plugin from its {@code DefaultPreemptionArgs} (defaults 10 % and 100 nodes). */
    public static DefaultPreemption fromArgs(JsonNode args, FrameworkHandle handle) {
        int percentage = args == null ? 10 : args.path("minCandidateNodesPercentage").asInt(10);
        int absolute = args == null ? 100 : args.path("minCandidateNodesAbsolute").asInt(100);
        return new DefaultPreemption(handle, percentage, absolute);
    }

    @Override
    public String name() {
        return NAME;
    }

    /** A node where preemption would let the pod fit, and what it would evict. */
    record Candidate(String nodeName, List<PodInfo> victims, int pdbViolations) {}

    @Override
    public PostFilterResult postFilter(CycleState state, PodInfo pod, NodeToStatus statuses) {
        if ("Never".equals(pod.pod().getSpec().getPreemptionPolicy())) {
            return new PostFilterResult(Status.unresolvable("not eligible due to preemptionPolicy=Never.").withPlugin(NAME), "");
        }
        if (!eligibleToPreemptOthers(pod, statuses)) {
            return new PostFilterResult(Status.unschedulable("not eligible due to a terminating pod on the nominated node.").withPlugin(NAME), "");
        }
        List<NodeInfo> allNodes = handle.snapshot().list();
        List<NodeInfo> potentialNodes = new ArrayList<>();
        for (NodeInfo nodeInfo : allNodes) {
            Status status = statuses.get(nodeInfo.name());
            if (status.code() != Code.UNSCHEDULABLE_AND_UNRESOLVABLE) {
                potentialNodes.add(nodeInfo);
            }
        }
        Diagnosis diagnosis = new Diagnosis();
        if (potentialNodes.isEmpty()) {
            statuses.forEachExplicit((node, status) -> diagnosis.nodeToStatus().set(node, Status.unresolvable(REASON_NOT_HELPFUL)));
            diagnosis.nodeToStatus().setAbsentNodesStatus(Status.unresolvable(REASON_NOT_HELPFUL));
            return failure(pod, allNodes.size(), diagnosis);
        }
        List<PodDisruptionBudget> budgets = handle.clusterView().podDisruptionBudgets();
        int numCandidates = numberOfCandidates(potentialNodes.size());
        List<Candidate> candidates = new ArrayList<>();
        int offset = potentialNodes.size() <= numCandidates ? 0 : java.util.concurrent.ThreadLocalRandom.current().nextInt(potentialNodes.size());
        for (int i = 0; i < potentialNodes.size() && candidates.size() < numCandidates; i++) {
            NodeInfo nodeInfo = potentialNodes.get((offset + i) % potentialNodes.size());
            Candidate candidate = selectVictimsOnNode(state, pod, nodeInfo, budgets);
            if (candidate != null) {
                candidates.add(candidate);
            } else {
                diagnosis.nodeToStatus().set(nodeInfo.name(), Status.unschedulable(REASON_NO_VICTIMS));
            }
        }
        if (candidates.isEmpty()) {
            for (NodeInfo nodeInfo : allNodes) {
                if (!diagnosis.nodeToStatus().containsExplicit(nodeInfo.name())) {
                    diagnosis.nodeToStatus().set(nodeInfo.name(), statuses.get(nodeInfo.name()).code() == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
                            ? Status.unresolvable(REASON_NOT_HELPFUL) : Status.unschedulable(REASON_NO_VICTIMS));
                }
            }
            return failure(pod, allNodes.size(), diagnosis);
        }
        Candidate best = selectCandidate(candidates);
        prepareCandidate(pod, best);
        return new PostFilterResult(Status.SUCCESS, best.nodeName());
    }

    private PostFilterResult failure(PodInfo pod, int numAllNodes, Diagnosis diagnosis) {
        String message = "preemption: " + new FitError(pod, numAllNodes, diagnosis).message();
        return new PostFilterResult(Status.unschedulable(message).withPlugin(NAME), "");
    }

    /**
     * A pod already nominated to a node where a lower-priority pod is terminating waits for it instead of preempting
     * again, as upstream.
     */
    private boolean eligibleToPreemptOthers(PodInfo pod, NodeToStatus statuses) {
        String nominated = pod.pod().getStatus() == null ? null : pod.pod().getStatus().getNominatedNodeName();
        if (nominated == null || nominated.isEmpty()) {
            return true;
        }
        if (statuses.get(nominated).code() == Code.UNSCHEDULABLE_AND_UNRESOLVABLE) {
            return true;
        }
        NodeInfo nodeInfo = handle.snapshot().get(nominated);
        if (nodeInfo == null) {
            return true;
        }
        for (PodInfo existing : nodeInfo.pods()) {
            if (existing.isTerminating() && existing.priority() < pod.priority()) {
                return false;
            }
        }
        return true;
    }

    int numberOfCandidates(int numNodes) {
        int candidates = numNodes * minCandidateNodesPercentage / 100;
        candidates = Math.max(candidates, minCandidateNodesAbsolute);
        return Math.min(candidates, numNodes);
    }

    /** The minimal victims on one node, or null when even evicting every lower-priority pod would not help. */
    Candidate selectVictimsOnNode(CycleState state, PodInfo pod, NodeInfo original, List<PodDisruptionBudget> budgets) {
        NodeInfo nodeInfo = original.copy();
        CycleState simulated = state.copy();
        List<PodInfo> potentialVictims = new ArrayList<>();
        for (PodInfo existing : original.pods()) {
            if (existing.priority() < pod.priority()) {
                potentialVictims.add(existing);
                nodeInfo.removePod(existing.uid());
                Status status = handle.pluginsRunner().runPreFilterExtensionRemovePod(simulated, pod, existing, nodeInfo);
                if (!status.isSuccess()) {
                    return null;
                }
            }
        }
        if (potentialVictims.isEmpty()) {
            return null;
        }
        if (!handle.pluginsRunner().runFilterPluginsWithNominatedPods(simulated, pod, nodeInfo).isSuccess()) {
            return null;
        }
        // Most important first: higher priority, then earlier start.
        potentialVictims.sort(Comparator.comparingInt(PodInfo::priority).reversed().thenComparing(PodInfo::startTime));
        List<PodInfo> violating = new ArrayList<>();
        List<PodInfo> nonViolating = new ArrayList<>();
        splitByBudgets(potentialVictims, budgets, violating, nonViolating);
        List<PodInfo> victims = new ArrayList<>();
        int violations = 0;
        for (PodInfo candidate : violating) {
            if (!reprieve(simulated, pod, nodeInfo, candidate)) {
                victims.add(candidate);
                violations++;
            }
        }
        for (PodInfo candidate : nonViolating) {
            if (!reprieve(simulated, pod, nodeInfo, candidate)) {
                victims.add(candidate);
            }
        }
        if (victims.isEmpty()) {
            return null;
        }
        return new Candidate(original.name(), List.copyOf(victims), violations);
    }

    /** Adds the pod back; keeps it when the preemptor still fits, else removes it again and returns false. */
    private boolean reprieve(CycleState state, PodInfo pod, NodeInfo nodeInfo, PodInfo candidate) {
        nodeInfo.addPod(candidate);
        handle.pluginsRunner().runPreFilterExtensionAddPod(state, pod, candidate, nodeInfo);
        if (handle.pluginsRunner().runFilterPluginsWithNominatedPods(state, pod, nodeInfo).isSuccess()) {
            return true;
        }
        nodeInfo.removePod(candidate.uid());
        handle.pluginsRunner().runPreFilterExtensionRemovePod(state, pod, candidate, nodeInfo);
        return false;
    }

    /**
     * Splits pods into those whose eviction would take a budget below its allowed disruptions and the others,
     * counting each budget's remaining allowance as victims are assigned, as upstream's {@code filterPodsWithPDBViolation}.
     */
    static void splitByBudgets(List<PodInfo> pods, List<PodDisruptionBudget> budgets, List<PodInfo> violating, List<PodInfo> nonViolating) {
        int[] allowed = new int[budgets.size()];
        List<Predicate<Map<String, String>>> selectors = new ArrayList<>(budgets.size());
        for (int i = 0; i < budgets.size(); i++) {
            PodDisruptionBudget budget = budgets.get(i);
            allowed[i] = budget.getStatus() == null || budget.getStatus().getDisruptionsAllowed() == null ? 0 : budget.getStatus().getDisruptionsAllowed();
            // An empty selector in a policy/v1 budget selects every pod of its namespace; a missing one selects none.
            selectors.add(budget.getSpec() == null || budget.getSpec().getSelector() == null ? labels -> false : Selectors.labelSelector(budget.getSpec().getSelector()));
        }
        for (PodInfo pod : pods) {
            boolean violates = false;
            for (int i = 0; i < budgets.size(); i++) {
                PodDisruptionBudget budget = budgets.get(i);
                if (!pod.namespace().equals(budget.getMetadata().getNamespace()) || !selectors.get(i).test(pod.labels())) {
                    continue;
                }
                Map<String, String> disrupted = budget.getStatus() == null ? null : budget.getStatus().getDisruptedPods();
                if (disrupted != null && disrupted.containsKey(pod.name())) {
                    continue;
                }
                allowed[i]--;
                if (allowed[i] < 0) {
                    violates = true;
                }
            }
            (violates ? violating : nonViolating).add(pod);
        }
    }

    /** Upstream's {@code pickOneNodeForPreemption} criteria, in order. */
    static Candidate selectCandidate(List<Candidate> candidates) {
        Comparator<Candidate> order = Comparator.<Candidate>comparingInt(Candidate::pdbViolations)
                .thenComparingInt(candidate -> highestPriority(candidate.victims()))
                .thenComparingLong(candidate -> prioritySum(candidate.victims()))
                .thenComparingInt(candidate -> candidate.victims().size())
                .thenComparing(candidate -> earliestStartOfHighestPriority(candidate.victims()), Comparator.reverseOrder());
        return candidates.stream().min(order).orElseThrow();
    }

    private static int highestPriority(List<PodInfo> victims) {
        int highest = Integer.MIN_VALUE;
        for (PodInfo victim : victims) {
            highest = Math.max(highest, victim.priority());
        }
        return highest;
    }

    /** The sum of priorities shifted to be non-negative, so that more victims never lowers it. */
    private static long prioritySum(List<PodInfo> victims) {
        long sum = 0;
        for (PodInfo victim : victims) {
            sum += (long) victim.priority() + Integer.MAX_VALUE + 1;
        }
        return sum;
    }

    private static Instant earliestStartOfHighestPriority(List<PodInfo> victims) {
        int highest = highestPriority(victims);
        Instant earliest = Instant.MAX;
        for (PodInfo victim : victims) {
            if (victim.priority() == highest && victim.startTime().isBefore(earliest)) {
                earliest = victim.startTime();
            }
        }
        return earliest;
    }

    /**
     * Evicts the victims (marking them with a DisruptionTarget condition first, as upstream) and clears the
     * nomination of lower-priority pods nominated to the same node, which can no longer count on that room.
     */
    private void prepareCandidate(PodInfo pod, Candidate candidate) {
        for (PodInfo victim : candidate.victims()) {
            PodCondition condition = new PodConditionBuilder().withType("DisruptionTarget").withStatus("True")
                    .withReason("PreemptionByScheduler").withMessage(handle.profileName() + ": preempting to accommodate a higher priority pod")
                    .withLastTransitionTime(handle.clock().instant().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString()).build();
            try {
                handle.client().patchPodStatus(victim.pod(), condition, null);
                handle.client().deletePod(victim.pod());
                handle.client().recordEvent(victim.pod(), "Normal", "Preempted", "Preempting",
                        "Preempted by pod " + pod.uid() + " on node " + candidate.nodeName());
            } catch (RuntimeException e) {
                LOG.warn("Could not preempt pod {} for {}", victim.key(), pod.key(), e);
            }
        }
        for (PodInfo nominated : handle.nominator().nominatedPodsForNode(candidate.nodeName())) {
            if (nominated.priority() < pod.priority()) {
                Pod nominatedPod = nominated.pod();
                try {
                    handle.client().patchPodStatus(nominatedPod, null, "");
                } catch (RuntimeException e) {
                    LOG.warn("Could not clear the nominated node of pod {}", nominated.key(), e);
                }
                handle.nominator().deleteNominatedPodIfExists(nominated);
            }
        }
    }
}
