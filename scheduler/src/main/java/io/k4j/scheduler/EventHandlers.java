package io.k4j.scheduler;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.k4j.scheduler.cache.SchedulerCache;
import io.k4j.scheduler.framework.ActionType;
import io.k4j.scheduler.framework.ClusterEvent;
import io.k4j.scheduler.framework.EventResource;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.Resource;
import io.k4j.scheduler.queue.SchedulingQueue;
import java.util.Objects;
import java.util.Set;

/**
 * Turns informer notifications into cache and queue changes, as upstream's {@code eventhandlers.go}: bound pods go to
 * the cache, unbound pods of this scheduler's profiles to the queue; node and bound-pod changes become cluster events
 * that move unschedulable pods back. Terminal (Succeeded/Failed) pods count as deleted, since they hold no resources.
 * Thread-safe (the cache and queue are).
 */
public final class EventHandlers {
    private final SchedulerCache cache;
    private final SchedulingQueue queue;
    private final Set<String> schedulerNames;

    public EventHandlers(SchedulerCache cache, SchedulingQueue queue, Set<String> schedulerNames) {
        this.cache = requireNonNull(cache, "cache is null");
        this.queue = requireNonNull(queue, "queue is null");
        this.schedulerNames = Set.copyOf(schedulerNames);
    }

    private static boolean assigned(Pod pod) {
        return pod.getSpec().getNodeName() != null && !pod.getSpec().getNodeName().isEmpty();
    }

    private static boolean terminal(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    private boolean responsibleFor(Pod pod) {
        String name = pod.getSpec().getSchedulerName();
        return schedulerNames.contains(name == null || name.isEmpty() ? "default-scheduler" : name);
    }

    public void onPodAdd(Pod pod) {
        if (terminal(pod)) {
            return;
        }
        PodInfo podInfo = new PodInfo(pod);
        if (assigned(pod)) {
            cache.addPod(podInfo);
            queue.assignedPodAdded(podInfo);
        } else if (responsibleFor(pod) && pod.getMetadata().getDeletionTimestamp() == null) {
            queue.add(podInfo);
        }
    }

    public void onPodUpdate(Pod oldPod, Pod newPod) {
        boolean wasAssigned = assigned(oldPod) && !terminal(oldPod);
        if (terminal(newPod)) {
            onPodDelete(oldPod);
            return;
        }
        PodInfo newInfo = new PodInfo(newPod);
        if (assigned(newPod)) {
            if (!wasAssigned) {
                // Bound since the last notification: it leaves the queue and enters the cache.
                queue.delete(new PodInfo(oldPod));
                cache.addPod(newInfo);
                queue.assignedPodAdded(newInfo);
                return;
            }
            cache.updatePod(newInfo);
            int actions = assignedPodUpdateActions(oldPod, newPod, newInfo);
            if (actions != 0) {
                queue.moveAllToActiveOrBackoffQueue(new ClusterEvent(EventResource.ASSIGNED_POD, actions, "AssignedPodUpdate"));
            }
            return;
        }
        if (responsibleFor(newPod)) {
            if (newPod.getMetadata().getDeletionTimestamp() != null) {
                queue.delete(newInfo);
            } else {
                queue.update(new PodInfo(oldPod), newInfo);
            }
        }
    }

    private static int assignedPodUpdateActions(Pod oldPod, Pod newPod, PodInfo newInfo) {
        int actions = 0;
        if (!Objects.equals(oldPod.getMetadata().getLabels(), newPod.getMetadata().getLabels())) {
            actions |= ActionType.UPDATE_POD_LABEL;
        }
        Resource oldRequests = new PodInfo(oldPod).requests();
        Resource newRequests = newInfo.requests();
        if (newRequests.milliCpu < oldRequests.milliCpu || newRequests.memory < oldRequests.memory) {
            actions |= ActionType.UPDATE_POD_SCALE_DOWN;
        }
        if (newPod.getMetadata().getDeletionTimestamp() != null && oldPod.getMetadata().getDeletionTimestamp() == null) {
            actions |= ActionType.UPDATE_POD_OTHER;
        }
        return actions;
    }

    public void onPodDelete(Pod pod) {
        PodInfo podInfo = new PodInfo(pod);
        if (assigned(pod)) {
            cache.removePod(podInfo);
            queue.moveAllToActiveOrBackoffQueue(ClusterEvent.ASSIGNED_POD_DELETE);
        } else {
            queue.delete(podInfo);
        }
    }

    public void onNodeAdd(Node node) {
        cache.addNode(node);
        queue.moveAllToActiveOrBackoffQueue(ClusterEvent.NODE_ADD);
    }

    public void onNodeUpdate(Node oldNode, Node newNode) {
        cache.updateNode(newNode);
        int actions = nodeUpdateActions(oldNode, newNode);
        if (actions != 0) {
            queue.moveAllToActiveOrBackoffQueue(new ClusterEvent(EventResource.NODE, actions, "NodeUpdate"));
        }
    }

    public void onNodeDelete(Node node) {
        cache.removeNode(node);
    }

    /** What changed in a node that scheduling cares about, as upstream's {@code nodeSchedulingPropertiesChange}. */
    static int nodeUpdateActions(Node oldNode, Node newNode) {
        int actions = 0;
        if (!Objects.equals(oldNode.getSpec() == null ? null : oldNode.getSpec().getUnschedulable(), newNode.getSpec() == null ? null : newNode.getSpec().getUnschedulable())
                || !Objects.equals(oldNode.getSpec() == null ? null : oldNode.getSpec().getTaints(), newNode.getSpec() == null ? null : newNode.getSpec().getTaints())) {
            actions |= ActionType.UPDATE_NODE_TAINT;
        }
        if (!Objects.equals(oldNode.getMetadata().getLabels(), newNode.getMetadata().getLabels())) {
            actions |= ActionType.UPDATE_NODE_LABEL;
        }
        if (!Objects.equals(oldNode.getStatus() == null ? null : oldNode.getStatus().getAllocatable(), newNode.getStatus() == null ? null : newNode.getStatus().getAllocatable())) {
            actions |= ActionType.UPDATE_NODE_ALLOCATABLE;
        }
        if (!Objects.equals(oldNode.getMetadata().getAnnotations(), newNode.getMetadata().getAnnotations())) {
            actions |= ActionType.UPDATE_NODE_ANNOTATION;
        }
        if (!conditionStatusesEqual(oldNode, newNode)) {
            actions |= ActionType.UPDATE_NODE_CONDITION;
        }
        return actions;
    }

    private static boolean conditionStatusesEqual(Node oldNode, Node newNode) {
        java.util.Map<String, String> oldStatuses = new java.util.HashMap<>();
        java.util.Map<String, String> newStatuses = new java.util.HashMap<>();
        if (oldNode.getStatus() != null && oldNode.getStatus().getConditions() != null) {
            oldNode.getStatus().getConditions().forEach(condition -> oldStatuses.put(condition.getType(), condition.getStatus()));
        }
        if (newNode.getStatus() != null && newNode.getStatus().getConditions() != null) {
            newNode.getStatus().getConditions().forEach(condition -> newStatuses.put(condition.getType(), condition.getStatus()));
        }
        return oldStatuses.equals(newStatuses);
    }
}
