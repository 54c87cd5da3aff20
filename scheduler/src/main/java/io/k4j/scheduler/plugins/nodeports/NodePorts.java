package io.k4j.scheduler.plugins.nodeports;

import io.k4j.scheduler.framework.ActionType;
import io.k4j.scheduler.framework.ClusterEvent;
import io.k4j.scheduler.framework.CycleState;
import io.k4j.scheduler.framework.EnqueueExtensions;
import io.k4j.scheduler.framework.EventResource;
import io.k4j.scheduler.framework.FilterPlugin;
import io.k4j.scheduler.framework.HostPort;
import io.k4j.scheduler.framework.NodeInfo;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.PreFilterPlugin;
import io.k4j.scheduler.framework.Status;
import io.k4j.scheduler.plugins.Names;
import java.util.List;

/** Filters out nodes where a host port the pod asks for is taken. Thread-safe. */
public final class NodePorts implements PreFilterPlugin, FilterPlugin, EnqueueExtensions {
    public static final String NAME = Names.NODE_PORTS;
    public static final String REASON = "node(s) didn't have free ports for the requested pod ports";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Status preFilter(CycleState state, PodInfo pod, List<NodeInfo> nodes) {
        // Most pods ask for no host port; skipping the filter then saves a call per node.
        return pod.hostPorts().isEmpty() ? Status.SKIP : Status.SUCCESS;
    }

    @Override
    public Status filter(CycleState state, PodInfo pod, NodeInfo nodeInfo) {
        List<HostPort> used = nodeInfo.usedPorts();
        for (HostPort wanted : pod.hostPorts()) {
            for (HostPort taken : used) {
                if (wanted.conflictsWith(taken)) {
                    return Status.unschedulable(REASON);
                }
            }
        }
        return Status.SUCCESS;
    }

    @Override
    public List<ClusterEvent> eventsToRegister() {
        return List.of(
                new ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE, "AssignedPodDelete"),
                new ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE, "NodeAddOrUpdate"));
    }
}
