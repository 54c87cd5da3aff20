package io.k4j.scheduler.plugins.tainttoleration;

import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.k4j.scheduler.framework.ActionType;
import io.k4j.scheduler.framework.ClusterEvent;
import io.k4j.scheduler.framework.CycleState;
import io.k4j.scheduler.framework.EnqueueExtensions;
import io.k4j.scheduler.framework.EventResource;
import io.k4j.scheduler.framework.FilterPlugin;
import io.k4j.scheduler.framework.NodeInfo;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.PreScorePlugin;
import io.k4j.scheduler.framework.ScorePlugin;
import io.k4j.scheduler.framework.StateData;
import io.k4j.scheduler.framework.Status;
import io.k4j.scheduler.plugins.Names;
import java.util.ArrayList;
import java.util.List;

/**
 * Filters out nodes with a NoSchedule or NoExecute taint the pod does not tolerate, and prefers nodes with fewer
 * untolerated PreferNoSchedule taints. Thread-safe.
 */
public final class TaintToleration implements FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
    public static final String NAME = Names.TAINT_TOLERATION;
    private static final String PRE_SCORE_STATE_KEY = "PreScore" + NAME;

    private record PreScoreState(List<Toleration> preferNoScheduleTolerations) implements StateData {
        @Override
        public StateData copy() {
            return this;
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Status filter(CycleState state, PodInfo pod, NodeInfo nodeInfo) {
        List<Taint> taints = nodeInfo.taints();
        if (taints.isEmpty()) {
            return Status.SUCCESS;
        }
        List<Toleration> tolerations = pod.pod().getSpec().getTolerations();
        for (Taint taint : taints) {
            String effect = taint.getEffect();
            if (!"NoSchedule".equals(effect) && !"NoExecute".equals(effect)) {
                continue;
            }
            if (!Tolerations.tolerates(tolerations, taint)) {
                return Status.unresolvable("node(s) had untolerated taint {" + taint.getKey() + ": " + (taint.getValue() == null ? "" : taint.getValue()) + "}");
            }
        }
        return Status.SUCCESS;
    }

    @Override
    public Status preScore(CycleState state, PodInfo pod, List<NodeInfo> nodes) {
        List<Toleration> preferNoSchedule = new ArrayList<>();
        List<Toleration> tolerations = pod.pod().getSpec().getTolerations();
        if (tolerations != null) {
            for (Toleration toleration : tolerations) {
                if (toleration.getEffect() == null || toleration.getEffect().isEmpty() || toleration.getEffect().equals("PreferNoSchedule")) {
                    preferNoSchedule.add(toleration);
                }
            }
        }
        state.write(PRE_SCORE_STATE_KEY, new PreScoreState(List.copyOf(preferNoSchedule)));
        return Status.SUCCESS;
    }

    @Override
    public long score(CycleState state, PodInfo pod, NodeInfo nodeInfo) {
        List<Taint> taints = nodeInfo.taints();
        if (taints.isEmpty()) {
            return 0;
        }
        PreScoreState preScoreState = (PreScoreState) state.read(PRE_SCORE_STATE_KEY);
        List<Toleration> tolerations = preScoreState == null ? List.of() : preScoreState.preferNoScheduleTolerations();
        long intolerable = 0;
        for (Taint taint : taints) {
            if ("PreferNoSchedule".equals(taint.getEffect()) && !Tolerations.tolerates(tolerations, taint)) {
                intolerable++;
            }
        }
        return intolerable;
    }

    @Override
    public void normalizeScores(CycleState state, PodInfo pod, List<NodeInfo> nodes, long[] scores) {
        ScorePlugin.defaultNormalize(MAX_NODE_SCORE, true, scores);
    }

    @Override
    public List<ClusterEvent> eventsToRegister() {
        return List.of(
                new ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT, "NodeAddOrTaintChange"),
                new ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.UPDATE_POD_TOLERATIONS, "PodTolerationChange"));
    }
}
