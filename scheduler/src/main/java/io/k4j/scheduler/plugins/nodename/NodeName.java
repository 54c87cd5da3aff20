package io.k4j.scheduler.plugins.nodename;

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
import java.util.List;

/** Filters out every node but the one named in the pod's {@code spec.nodeName}, when set. Thread-safe. */
public final class NodeName implements FilterPlugin, EnqueueExtensions {
    public static final String NAME = Names.NODE_NAME;
    public static final String REASON = "node(s) didn't match the requested node name";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Status filter(CycleState state, PodInfo pod, NodeInfo nodeInfo) {
        String wanted = pod.nodeName();
        if (wanted.isEmpty() || wanted.equals(nodeInfo.name())) {
            return Status.SUCCESS;
        }
        return Status.unresolvable(REASON);
    }

    @Override
    public List<ClusterEvent> eventsToRegister() {
        return List.of(new ClusterEvent(EventResource.NODE, ActionType.ADD, "NodeAdd"));
    }
}
