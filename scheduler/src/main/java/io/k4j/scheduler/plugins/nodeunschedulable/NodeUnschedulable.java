package io.k4j.scheduler.plugins.nodeunschedulable;

import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.k4j.scheduler.framework.ActionType;
import io.k4j.scheduler.framework.ClusterEvent;
import io.k4j.scheduler.framework.CycleState;
import io.k4j.scheduler.framework.EnqueueExtensions;
import io.k4j.scheduler.framework.EventResource;
import io.k4j.scheduler.framework.FilterPlugin;
import io.k4j.scheduler.framework.NodeInfo;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.Status;
import io.k4j.scheduler.plugins.Names;
import io.k4j.scheduler.plugins.tainttoleration.Tolerations;
import java.util.List;

/** Filters out cordoned nodes ({@code spec.unschedulable}) unless the pod tolerates the unschedulable taint. Thread-safe. */
public final class NodeUnschedulable implements FilterPlugin, EnqueueExtensions {
    public static final String NAME = Names.NODE_UNSCHEDULABLE;
    public static final String REASON = "node(s) were unschedulable";
    private static final Taint UNSCHEDULABLE_TAINT = new TaintBuilder().withKey("node.kubernetes.io/unschedulable").withEffect("NoSchedule").build();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Status filter(CycleState state, PodInfo pod, NodeInfo nodeInfo) {
        if (!nodeInfo.unschedulable()) {
            return Status.SUCCESS;
        }
        if (Tolerations.tolerates(pod.pod().getSpec().getTolerations(), UNSCHEDULABLE_TAINT)) {
            return Status.SUCCESS;
        }
        return Status.unresolvable(REASON);
    }

    @Override
    public List<ClusterEvent> eventsToRegister() {
        return List.of(
                new ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT, "NodeAddOrTaintChange"),
                new ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.UPDATE_POD_TOLERATIONS, "PodTolerationChange"));
    }
}
