package io.k4j.scheduler;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.k4j.scheduler.cache.SchedulerCache;
import io.k4j.scheduler.framework.ClusterEvent;
import io.k4j.scheduler.framework.CycleState;
import io.k4j.scheduler.framework.Diagnosis;
import io.k4j.scheduler.framework.FitError;
import io.k4j.scheduler.framework.Framework;
import io.k4j.scheduler.framework.NodeInfo;
import io.k4j.scheduler.framework.PluginException;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.PostFilterResult;
import io.k4j.scheduler.framework.QueuedPodInfo;
import io.k4j.scheduler.framework.SchedulerClient;
import io.k4j.scheduler.framework.Snapshot;
import io.k4j.scheduler.framework.Status;
import io.k4j.scheduler.queue.SchedulingQueue;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduling loop, as upstream's {@code scheduleOne}: pop a pod, refresh the snapshot, run the scheduling cycle
 * (PreFilter, Filter over a round-robin sample of nodes sized by percentageOfNodesToScore, PostFilter on failure,
 * PreScore/Score, pick the best node), assume the pod in the cache, Reserve and Permit, then run the binding cycle
 * (WaitOnPermit, PreBind, Bind, PostBind) asynchronously so the next pod can be scheduled meanwhile. Failures go back to
 * the queue and are reported as a {@code FailedScheduling} event and a {@code PodScheduled=False} condition.
 *
 * <p>One thread runs the scheduling cycles; binding cycles and failure reports run on {@code asyncExecutor}.
 */
public final class Scheduler {
    private static final Logger LOG = LoggerFactory.getLogger(Scheduler.class);
    /** Below this many nodes all nodes are evaluated (upstream's minFeasibleNodesToFind). */
    static final int MIN_FEASIBLE_NODES_TO_FIND = 100;
    static final int MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5;
    public static final String NO_NODES_AVAILABLE = "no nodes available to schedule pods";

    private final Map<String, Framework> frameworks;
    private final SchedulingQueue queue;
    private final SchedulerCache cache;
    private final SchedulerClient client;
    private final PodLookup podLookup;
    private final int percentageOfNodesToScore;
    private final ExecutorService asyncExecutor;
    private final InstantSource clock;
    private final Snapshot snapshot = new Snapshot();
    private int nextStartNodeIndex;

    public Scheduler(Map<String, Framework> frameworks, SchedulingQueue queue, SchedulerCache cache, SchedulerClient client, PodLookup podLookup,
            int percentageOfNodesToScore, ExecutorService asyncExecutor, InstantSource clock) {
        this.frameworks = Map.copyOf(frameworks);
        this.queue = requireNonNull(queue, "queue is null");
        this.cache = requireNonNull(cache, "cache is null");
        this.client = requireNonNull(client, "client is null");
        this.podLookup = requireNonNull(podLookup, "podLookup is null");
        this.percentageOfNodesToScore = percentageOfNodesToScore;
        this.asyncExecutor = requireNonNull(asyncExecutor, "asyncExecutor is null");
        this.clock = requireNonNull(clock, "clock is null");
        for (Framework framework : frameworks.values()) {
            framework.setSnapshot(snapshot);
        }
    }

    /** Runs scheduling cycles until the queue is closed or the thread is interrupted. */
    public void run() {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                QueuedPodInfo queued = queue.pop();
                if (queued == null) {
                    return;
                }
                scheduleOne(queued);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                LOG.error("Scheduling cycle failed", e);
            }
        }
    }

    /** Pops and schedules one pod if one arrives within the timeout; returns whether a pod was processed. For tests. */
    public boolean scheduleOne(Duration timeout) throws InterruptedException {
        QueuedPodInfo queued = queue.pop(timeout);
        if (queued == null) {
            return false;
        }
        scheduleOne(queued);
        return true;
    }

    void scheduleOne(QueuedPodInfo queued) {
        PodInfo pod = queued.podInfo();
        Framework framework = frameworks.get(pod.schedulerName());
        if (framework == null) {
            LOG.warn("No profile for scheduler name {} of pod {}", pod.schedulerName(), pod.key());
            return;
        }
        if (pod.isTerminating() || cache.isAssumedPod(pod.uid())) {
            return;
        }
        long cycle = queue.schedulingCycle();
        CycleState state = new CycleState();
        cache.updateSnapshot(snapshot);
        ScheduleResult result;
        try {
            result = schedulePod(framework, state, pod);
        } catch (FitFailure failure) {
            FitError fitError = failure.fitError;
            String nominatedNodeName = null;
            if (framework.hasPostFilterPlugins()) {
                PostFilterResult postFilter = framework.runPostFilterPlugins(state, pod, fitError.diagnosis().nodeToStatus());
                if (!postFilter.status().isSuccess() && !postFilter.status().message().isEmpty()) {
                    if (postFilter.status().isRejected()) {
                        fitError.diagnosis().setPostFilterMessage(postFilter.status().message());
                    } else {
                        LOG.warn("PostFilter failed for pod {}: {}", pod.key(), postFilter.status());
                    }
                }
                if (postFilter.status().isSuccess() && !postFilter.nominatedNodeName().isEmpty()) {
                    nominatedNodeName = postFilter.nominatedNodeName();
                }
            }
            queued.unschedulablePlugins().clear();
            queued.unschedulablePlugins().addAll(fitError.diagnosis().unschedulablePlugins());
            queued.pendingPlugins().clear();
            queued.pendingPlugins().addAll(fitError.diagnosis().pendingPlugins());
            handleFailure(framework, queued, Status.unschedulable(fitError.message()), nominatedNodeName, cycle);
            return;
        } catch (PluginException e) {
            queued.unschedulablePlugins().clear();
            handleFailure(framework, queued, e.status(), null, cycle);
            return;
        }
        PodInfo assumed = pod.withNodeName(result.nodeName());
        try {
            cache.assumePod(assumed);
        } catch (IllegalStateException e) {
            LOG.warn("Could not assume pod {}", pod.key(), e);
            handleFailure(framework, queued, Status.error(e), null, cycle);
            return;
        }
        queue.deleteNominatedPodIfExists(pod);
        Status reserve = framework.runReservePluginsReserve(state, assumed, result.nodeName());
        if (!reserve.isSuccess()) {
            framework.runReservePluginsUnreserve(state, assumed, result.nodeName());
            cache.forgetPod(assumed);
            recordRejection(queued, reserve);
            handleFailure(framework, queued, reserve, null, cycle);
            return;
        }
        Status permit = framework.runPermitPlugins(state, assumed, result.nodeName());
        if (!permit.isSuccess() && !permit.isWait()) {
            framework.runReservePluginsUnreserve(state, assumed, result.nodeName());
            cache.forgetPod(assumed);
            recordRejection(queued, permit);
            handleFailure(framework, queued, permit, null, cycle);
            return;
        }
        asyncExecutor.execute(() -> bindingCycle(framework, state, queued, assumed, result.nodeName(), cycle));
    }

    private static void recordRejection(QueuedPodInfo queued, Status status) {
        queued.unschedulablePlugins().clear();
        if (status.isRejected() && !status.plugin().isEmpty()) {
            queued.unschedulablePlugins().add(status.plugin());
        }
    }

    private void bindingCycle(Framework framework, CycleState state, QueuedPodInfo queued, PodInfo assumed, String nodeName, long cycle) {
        Status status = framework.waitOnPermit(assumed);
        if (status.isSuccess()) {
            status = framework.runPreBindPlugins(state, assumed, nodeName);
        }
        if (status.isSuccess()) {
            status = framework.runBindPlugins(state, assumed, nodeName);
        }
        if (!status.isSuccess()) {
            framework.runReservePluginsUnreserve(state, assumed, nodeName);
            cache.forgetPod(assumed);
            // The room the pod held is free again.
            queue.moveAllToActiveOrBackoffQueue(ClusterEvent.ASSIGNED_POD_DELETE);
            recordRejection(queued, status);
            handleFailure(framework, queued, status, null, cycle);
            return;
        }
        cache.finishBinding(assumed);
        client.recordEvent(assumed.pod(), "Normal", "Scheduled", "Binding",
                "Successfully assigned " + assumed.key() + " to " + nodeName);
        framework.runPostBindPlugins(state, assumed, nodeName);
    }

    /**
     * Requeues a pod that could not be scheduled (unless it is gone or bound meanwhile), records the nomination and
     * reports the failure with an event and the PodScheduled condition.
     */
    private void handleFailure(Framework framework, QueuedPodInfo queued, Status status, String nominatedNodeName, long cycle) {
        PodInfo pod = queued.podInfo();
        String reason = status.isRejected() ? "Unschedulable" : "SchedulerError";
        String message = status.message();
        if (status.isRejected()) {
            LOG.debug("Unable to schedule pod {}: {}", pod.key(), message);
        } else {
            LOG.warn("Error scheduling pod {}: {}", pod.key(), status);
        }
        Pod current = podLookup.get(pod.namespace(), pod.name());
        if (current == null || current.getMetadata().getUid() != null && !current.getMetadata().getUid().equals(pod.uid())) {
            return;
        }
        if (current.getSpec().getNodeName() != null && !current.getSpec().getNodeName().isEmpty()) {
            return;
        }
        PodInfo currentInfo = current == pod.pod() ? pod : new PodInfo(current);
        queued.setPodInfo(currentInfo);
        queue.addUnschedulableIfNotPresent(queued, cycle);
        if (nominatedNodeName != null) {
            queue.addNominatedPod(currentInfo, nominatedNodeName);
        }
        asyncExecutor.execute(() -> reportFailure(current, reason, message, nominatedNodeName));
    }

    private void reportFailure(Pod pod, String reason, String message, String nominatedNodeName) {
        client.recordEvent(pod, "Warning", "FailedScheduling", "Scheduling", message);
        PodCondition existing = null;
        if (pod.getStatus() != null && pod.getStatus().getConditions() != null) {
            for (PodCondition condition : pod.getStatus().getConditions()) {
                if ("PodScheduled".equals(condition.getType())) {
                    existing = condition;
                }
            }
        }
        String currentNominated = pod.getStatus() == null || pod.getStatus().getNominatedNodeName() == null ? "" : pod.getStatus().getNominatedNodeName();
        boolean conditionUnchanged = existing != null && "False".equals(existing.getStatus()) && reason.equals(existing.getReason())
                && message.equals(existing.getMessage());
        boolean nominationUnchanged = nominatedNodeName == null || nominatedNodeName.equals(currentNominated);
        if (conditionUnchanged && nominationUnchanged) {
            return;
        }
        PodCondition condition = new PodConditionBuilder().withType("PodScheduled").withStatus("False").withReason(reason).withMessage(message)
                .withLastTransitionTime(existing != null && "False".equals(existing.getStatus()) ? existing.getLastTransitionTime() : clock.instant().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString())
                .build();
        try {
            client.patchPodStatus(pod, condition, nominatedNodeName);
        } catch (RuntimeException e) {
            LOG.warn("Could not update the status of pod {}/{}", pod.getMetadata().getNamespace(), pod.getMetadata().getName(), e);
        }
    }

    /** The node chosen for a pod and how many nodes were looked at. */
    record ScheduleResult(String nodeName, int evaluatedNodes, int feasibleNodes) {}

    /** No node fits; carries the diagnosis. */
    static final class FitFailure extends RuntimeException {
        final transient FitError fitError;

        FitFailure(FitError fitError) {
            super(null, null, false, false);
            this.fitError = fitError;
        }
    }

    ScheduleResult schedulePod(Framework framework, CycleState state, PodInfo pod) {
        if (snapshot.numNodes() == 0) {
            throw new PluginException(Status.error(NO_NODES_AVAILABLE));
        }
        Diagnosis diagnosis = new Diagnosis();
        List<NodeInfo> feasible = findNodesThatFitPod(framework, state, pod, diagnosis);
        if (feasible.isEmpty()) {
            throw new FitFailure(new FitError(pod, snapshot.numNodes(), diagnosis));
        }
        if (feasible.size() == 1) {
            return new ScheduleResult(feasible.get(0).name(), 1 + diagnosis.nodeToStatus().size(), 1);
        }
        long[] scores = prioritizeNodes(framework, state, pod, feasible);
        return new ScheduleResult(selectHost(feasible, scores), feasible.size() + diagnosis.nodeToStatus().size(), feasible.size());
    }

    private List<NodeInfo> findNodesThatFitPod(Framework framework, CycleState state, PodInfo pod, Diagnosis diagnosis) {
        List<NodeInfo> allNodes = snapshot.list();
        Framework.PreFilterOutcome preFilter = framework.runPreFilterPlugins(state, pod, allNodes);
        Status preFilterStatus = preFilter.status();
        if (!preFilterStatus.isSuccess()) {
            if (!preFilterStatus.isRejected()) {
                throw new PluginException(preFilterStatus);
            }
            diagnosis.nodeToStatus().setAbsentNodesStatus(preFilterStatus);
            diagnosis.setPreFilterMessage(preFilterStatus.message());
            diagnosis.unschedulablePlugins().addAll(preFilter.unschedulablePlugins());
            diagnosis.addPluginStatus(preFilterStatus);
            return List.of();
        }
        String nominated = pod.pod().getStatus() == null ? null : pod.pod().getStatus().getNominatedNodeName();
        if (nominated != null && !nominated.isEmpty()) {
            NodeInfo nominatedNode = snapshot.get(nominated);
            if (nominatedNode != null && (preFilter.result().allNodes() || preFilter.result().nodeNames().contains(nominated))) {
                Status status = framework.runFilterPluginsWithNominatedPods(state, pod, nominatedNode);
                if (status.isSuccess()) {
                    return List.of(nominatedNode);
                }
            }
        }
        List<NodeInfo> nodes = allNodes;
        if (!preFilter.result().allNodes()) {
            nodes = new ArrayList<>();
            for (String name : preFilter.result().nodeNames()) {
                NodeInfo nodeInfo = snapshot.get(name);
                if (nodeInfo != null) {
                    nodes.add(nodeInfo);
                }
            }
            diagnosis.nodeToStatus().setAbsentNodesStatus(Status.unresolvable("node(s) didn't satisfy plugin(s) " + Framework.goList(preFilter.unschedulablePlugins())));
            diagnosis.unschedulablePlugins().addAll(preFilter.unschedulablePlugins());
        }
        return findNodesThatPassFilters(framework, state, pod, diagnosis, nodes);
    }

    private List<NodeInfo> findNodesThatPassFilters(Framework framework, CycleState state, PodInfo pod, Diagnosis diagnosis, List<NodeInfo> nodes) {
        int numAllNodes = nodes.size();
        if (numAllNodes == 0) {
            return List.of();
        }
        int numNodesToFind = numFeasibleNodesToFind(framework.percentageOfNodesToScore() > 0 ? framework.percentageOfNodesToScore() : percentageOfNodesToScore, numAllNodes);
        int start = nextStartNodeIndex % numAllNodes;
        NodeInfo[] feasible = new NodeInfo[numNodesToFind];
        // Made on the first rejection: with thousands of nodes, an array per pod that most pods leave empty.
        AtomicReference<Status[]> statuses = new AtomicReference<>();
        AtomicInteger feasibleCount = new AtomicInteger();
        BooleanSupplier enoughFound = () -> feasibleCount.get() >= numNodesToFind;
        int visited = framework.parallelizer().until(numAllNodes, index -> {
            if (enoughFound.getAsBoolean()) {
                return;
            }
            NodeInfo nodeInfo = nodes.get((start + index) % numAllNodes);
            Status status = framework.runFilterPluginsWithNominatedPods(state, pod, nodeInfo);
            if (status.isSuccess()) {
                int slot = feasibleCount.getAndIncrement();
                if (slot < numNodesToFind) {
                    feasible[slot] = nodeInfo;
                } else {
                    feasibleCount.decrementAndGet();
                }
            } else {
                statuses.updateAndGet(known -> known != null ? known : new Status[numAllNodes])[index] = status;
            }
        }, enoughFound);
        // As upstream: the nodes processed are the feasible ones kept and the rejected ones, counted after the loop
        // rather than with one more counter that both filter threads would write for every node.
        int count = Math.min(feasibleCount.get(), numNodesToFind);
        int processed = count;
        Status[] rejected = statuses.get();
        for (int index = 0; rejected != null && index < visited; index++) {
            Status status = rejected[index];
            if (status == null) {
                continue;
            }
            processed++;
            if (!status.isRejected()) {
                throw new PluginException(status);
            }
            diagnosis.nodeToStatus().set(nodes.get((start + index) % numAllNodes).name(), status);
            diagnosis.addPluginStatus(status);
        }
        nextStartNodeIndex = (start + processed) % numAllNodes;
        List<NodeInfo> result = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            if (feasible[i] != null) {
                result.add(feasible[i]);
            }
        }
        return result;
    }

    /** How many feasible nodes to find before scoring: all below 100 nodes, else the configured or adaptive share. */
    static int numFeasibleNodesToFind(int percentageOfNodesToScore, int numAllNodes) {
        if (numAllNodes < MIN_FEASIBLE_NODES_TO_FIND) {
            return numAllNodes;
        }
        int percentage = percentageOfNodesToScore;
        if (percentage <= 0) {
            percentage = 50 - numAllNodes / 125;
            if (percentage < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND) {
                percentage = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND;
            }
        }
        int numNodes = (int) ((long) numAllNodes * percentage / 100);
        if (numNodes < MIN_FEASIBLE_NODES_TO_FIND) {
            return MIN_FEASIBLE_NODES_TO_FIND;
        }
        return numNodes;
    }

    private static long[] prioritizeNodes(Framework framework, CycleState state, PodInfo pod, List<NodeInfo> nodes) {
        if (!framework.hasScorePlugins()) {
            long[] scores = new long[nodes.size()];
            java.util.Arrays.fill(scores, 1);
            return scores;
        }
        Status preScore = framework.runPreScorePlugins(state, pod, nodes);
        if (!preScore.isSuccess()) {
            throw new PluginException(preScore);
        }
        return framework.runScorePlugins(state, pod, nodes);
    }

    /** The highest-scoring node; ties are broken uniformly at random (reservoir sampling), as upstream. */
    static String selectHost(List<NodeInfo> nodes, long[] scores) {
        int selected = 0;
        long maxScore = scores[0];
        int ties = 1;
        for (int i = 1; i < scores.length; i++) {
            if (scores[i] > maxScore) {
                maxScore = scores[i];
                selected = i;
                ties = 1;
            } else if (scores[i] == maxScore) {
                ties++;
                if (ThreadLocalRandom.current().nextInt(ties) == 0) {
                    selected = i;
                }
            }
        }
        return nodes.get(selected).name();
    }

    /** The snapshot the frameworks read; exposed for tests. */
    Snapshot snapshot() {
        return snapshot;
    }
}
