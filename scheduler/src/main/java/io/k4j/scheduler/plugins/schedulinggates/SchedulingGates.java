package io.k4j.scheduler.plugins.schedulinggates;

import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import io.k4j.scheduler.framework.ActionType;
import io.k4j.scheduler.framework.ClusterEvent;
import io.k4j.scheduler.framework.EnqueueExtensions;
import io.k4j.scheduler.framework.EventResource;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.PreEnqueuePlugin;
import io.k4j.scheduler.framework.Status;
import io.k4j.scheduler.plugins.Names;
import java.util.List;

/** Keeps pods with {@code spec.schedulingGates} out of the active queue until the gates are removed. Thread-safe. */
public final class SchedulingGates implements PreEnqueuePlugin, EnqueueExtensions {
    public static final String NAME = Names.SCHEDULING_GATES;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Status preEnqueue(PodInfo pod) {
        List<PodSchedulingGate> gates = pod.pod().getSpec().getSchedulingGates();
        if (gates == null || gates.isEmpty()) {
            return Status.SUCCESS;
        }
        List<String> names = gates.stream().map(PodSchedulingGate::getName).toList();
        return Status.unresolvable("waiting for scheduling gates: [" + String.join(" ", names) + "]");
    }

    @Override
    public List<ClusterEvent> eventsToRegister() {
        return List.of(new ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED, "PodUpdate"));
    }
}
