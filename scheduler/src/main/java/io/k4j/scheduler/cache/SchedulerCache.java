package io.k4j.scheduler.cache;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.Node;
import io.k4j.scheduler.framework.ImageStateSummary;
import io.k4j.scheduler.framework.NodeInfo;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.Snapshot;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduler's view of nodes and the pods on them, including pods it has assumed onto a node before the apiserver
 * confirmed the binding (so the next cycles already count them). An assumed pod is confirmed when the informer sees
 * it bound, and expires if its binding finished but no confirmation arrived within the TTL.
 *
 * <p>Nodes are kept in a list ordered by most recent change, each NodeInfo carrying a generation number, so that
 * {@link #updateSnapshot} copies only the nodes changed since the snapshot's generation, as upstream.
 *
 * <p>Thread-safe: informer handlers, the scheduling thread and binding threads call it concurrently; every method
 * holds the cache's lock.
 */
public final class SchedulerCache {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerCache.class);

    private final InstantSource clock;
    private final Duration assumedPodTtl;
    private final Map<String, NodeItem> nodes = new HashMap<>();
    private NodeItem head;
    private final Map<String, PodState> podStates = new HashMap<>();
    private final Set<String> assumedPods = new HashSet<>();
    private final Map<String, ImageState> imageStates = new HashMap<>();
    private int nodesWithObject;

    private static final class NodeItem {
        final NodeInfo info;
        NodeItem previous;
        NodeItem next;

        NodeItem(NodeInfo info) {
            this.info = info;
        }
    }

    private static final class PodState {
        PodInfo pod;
        Instant deadline;
        boolean bindingFinished;

        PodState(PodInfo pod) {
            this.pod = pod;
        }
    }

    private static final class ImageState {
        final long size;
        final Set<String> nodes = new HashSet<>();

        ImageState(long size) {
            this.size = size;
        }
    }

    /**
     * @param clock the time source
     * @param assumedPodTtl how long an assumed pod whose binding finished may wait for the informer's confirmation
     */
    public SchedulerCache(InstantSource clock, Duration assumedPodTtl) {
        this.clock = requireNonNull(clock, "clock is null");
        this.assumedPodTtl = requireNonNull(assumedPodTtl, "assumedPodTtl is null");
    }

    // --- nodes ---

    public synchronized void addNode(Node node) {
        String name = node.getMetadata().getName();
        NodeItem item = nodes.get(name);
        if (item == null) {
            item = new NodeItem(new NodeInfo());
            nodes.put(name, item);
        } else {
            removeNodeImageStates(item.info.node(), name);
        }
        if (item.info.node() == null) {
            nodesWithObject++;
        }
        moveToHead(item);
        item.info.setNode(node);
        addNodeImageStates(node, item.info);
    }

    public synchronized void updateNode(Node node) {
        addNode(node);
    }

    public synchronized void removeNode(Node node) {
        String name = node.getMetadata().getName();
        NodeItem item = nodes.get(name);
        if (item == null || item.info.node() == null) {
            return;
        }
        removeNodeImageStates(item.info.node(), name);
        nodesWithObject--;
        // Pods may still be bound to the node until their deletion arrives; keep them accounted on a node-less info.
        if (item.info.pods().isEmpty()) {
            unlink(item);
            nodes.remove(name);
        } else {
            item.info.removeNode();
            moveToHead(item);
        }
    }

    private void addNodeImageStates(Node node, NodeInfo info) {
        if (node.getStatus() == null || node.getStatus().getImages() == null) {
            info.setImageStates(Map.of());
            return;
        }
        Map<String, ImageStateSummary> summaries = new HashMap<>();
        String nodeName = node.getMetadata().getName();
        for (ContainerImage image : node.getStatus().getImages()) {
            if (image.getNames() == null) {
                continue;
            }
            long size = image.getSizeBytes() == null ? 0 : image.getSizeBytes();
            for (String name : image.getNames()) {
                ImageState state = imageStates.computeIfAbsent(name, ignored -> new ImageState(size));
                state.nodes.add(nodeName);
                summaries.put(name, new ImageStateSummary(state.size, state.nodes.size()));
            }
        }
        info.setImageStates(summaries);
    }

    private void removeNodeImageStates(Node node, String nodeName) {
        if (node == null || node.getStatus() == null || node.getStatus().getImages() == null) {
            return;
        }
        for (ContainerImage image : node.getStatus().getImages()) {
            if (image.getNames() == null) {
                continue;
            }
            for (String name : image.getNames()) {
                ImageState state = imageStates.get(name);
                if (state != null) {
                    state.nodes.remove(nodeName);
                    if (state.nodes.isEmpty()) {
                        imageStates.remove(name);
                    }
                }
            }
        }
    }

    // --- pods ---

    /** Counts a pod on its node before the binding is confirmed. The pod's nodeName must be set. */
    public synchronized void assumePod(PodInfo pod) {
        if (podStates.containsKey(pod.uid())) {
            throw new IllegalStateException("pod " + pod.key() + "(" + pod.uid() + ") is in the cache, so can't be assumed");
        }
        addPodToNode(pod);
        podStates.put(pod.uid(), new PodState(pod));
        assumedPods.add(pod.uid());
    }

    /** Starts the assumed pod's expiry clock once its binding request finished. */
    public synchronized void finishBinding(PodInfo pod) {
        PodState state = podStates.get(pod.uid());
        if (state != null && assumedPods.contains(pod.uid())) {
            state.bindingFinished = true;
            state.deadline = clock.instant().plus(assumedPodTtl);
        }
    }

    /** Drops an assumed pod whose binding failed. */
    public synchronized void forgetPod(PodInfo pod) {
        PodState state = podStates.get(pod.uid());
        if (state == null || !assumedPods.contains(pod.uid())) {
            return;
        }
        removePodFromNode(state.pod);
        podStates.remove(pod.uid());
        assumedPods.remove(pod.uid());
    }

    /** A pod the informer sees bound to a node: confirms an assumed pod or adds a pod bound by someone else. */
    public synchronized void addPod(PodInfo pod) {
        PodState state = podStates.get(pod.uid());
        if (state != null && assumedPods.contains(pod.uid())) {
            if (!state.pod.nodeName().equals(pod.nodeName())) {
                LOG.info("Pod {} was assumed to node {} but bound to {}", pod.key(), state.pod.nodeName(), pod.nodeName());
            }
            removePodFromNode(state.pod);
            addPodToNode(pod);
            state.pod = pod;
            assumedPods.remove(pod.uid());
            return;
        }
        if (state != null) {
            updatePodLocked(state, pod);
            return;
        }
        addPodToNode(pod);
        podStates.put(pod.uid(), new PodState(pod));
    }

    public synchronized void updatePod(PodInfo pod) {
        PodState state = podStates.get(pod.uid());
        if (state == null) {
            addPod(pod);
            return;
        }
        if (assumedPods.contains(pod.uid())) {
            // The informer's view wins over the assumption.
            assumedPods.remove(pod.uid());
        }
        updatePodLocked(state, pod);
    }

    private void updatePodLocked(PodState state, PodInfo pod) {
        removePodFromNode(state.pod);
        addPodToNode(pod);
        state.pod = pod;
    }

    public synchronized void removePod(PodInfo pod) {
        PodState state = podStates.remove(pod.uid());
        assumedPods.remove(pod.uid());
        if (state != null) {
            removePodFromNode(state.pod);
        }
    }

    public synchronized boolean isAssumedPod(String uid) {
        return assumedPods.contains(uid);
    }

    /** The cached version of a pod (assumed or bound), or null. */
    public synchronized PodInfo getPod(String uid) {
        PodState state = podStates.get(uid);
        return state == null ? null : state.pod;
    }

    /** Removes assumed pods whose binding finished more than the TTL ago without a confirmation. */
    public synchronized void cleanupExpiredAssumedPods() {
        Instant now = clock.instant();
        List<String> expired = new ArrayList<>();
        for (String uid : assumedPods) {
            PodState state = podStates.get(uid);
            if (state != null && state.bindingFinished && state.deadline != null && now.isAfter(state.deadline)) {
                expired.add(uid);
            }
        }
        for (String uid : expired) {
            PodState state = podStates.remove(uid);
            assumedPods.remove(uid);
            LOG.warn("Assumed pod {} expired: its binding was never confirmed", state.pod.key());
            removePodFromNode(state.pod);
        }
    }

    private void addPodToNode(PodInfo pod) {
        NodeItem item = nodes.get(pod.nodeName());
        if (item == null) {
            // The pod's node is not known yet; account the pod on a node-less info until the node arrives.
            item = new NodeItem(new NodeInfo());
            nodes.put(pod.nodeName(), item);
        }
        item.info.addPod(pod);
        moveToHead(item);
    }

    private void removePodFromNode(PodInfo pod) {
        NodeItem item = nodes.get(pod.nodeName());
        if (item == null) {
            return;
        }
        item.info.removePod(pod.uid());
        if (item.info.node() == null && item.info.pods().isEmpty()) {
            unlink(item);
            nodes.remove(pod.nodeName());
        } else {
            moveToHead(item);
        }
    }

    private void moveToHead(NodeItem item) {
        if (head == item) {
            return;
        }
        unlink(item);
        item.next = head;
        if (head != null) {
            head.previous = item;
        }
        head = item;
    }

    private void unlink(NodeItem item) {
        if (item.previous != null) {
            item.previous.next = item.next;
        }
        if (item.next != null) {
            item.next.previous = item.previous;
        }
        if (head == item) {
            head = item.next;
        }
        item.previous = null;
        item.next = null;
    }

    // --- snapshot ---

    /**
     * Brings a snapshot up to date: copies the NodeInfos changed since the snapshot's generation (the change list is
     * ordered newest first, so the walk stops at the first unchanged node) and drops deleted nodes.
     */
    public synchronized void updateSnapshot(Snapshot snapshot) {
        long snapshotGeneration = snapshot.generation();
        boolean rebuildAffinityLists = false;
        for (NodeItem item = head; item != null; item = item.next) {
            NodeInfo info = item.info;
            if (info.generation() <= snapshotGeneration) {
                break;
            }
            if (info.node() == null) {
                continue;
            }
            NodeInfo existing = snapshot.get(info.name());
            if (existing == null
                    || existing.podsWithAffinity().isEmpty() != info.podsWithAffinity().isEmpty()
                    || existing.podsWithRequiredAntiAffinity().isEmpty() != info.podsWithRequiredAntiAffinity().isEmpty()) {
                rebuildAffinityLists = true;
            }
            NodeInfo copy = info.copy();
            copy.refreshImageStates(currentImageSummaries(info));
            snapshot.put(copy);
        }
        if (head != null) {
            snapshot.setGeneration(head.info.generation());
        }
        if (snapshot.numNodes() > nodesWithObject) {
            List<String> removed = new ArrayList<>();
            for (String name : snapshot.nodeNames()) {
                NodeItem item = nodes.get(name);
                if (item == null || item.info.node() == null) {
                    removed.add(name);
                }
            }
            removed.forEach(snapshot::remove);
            rebuildAffinityLists = true;
        }
        if (rebuildAffinityLists) {
            snapshot.rebuildAffinityLists();
        }
    }

    private Map<String, ImageStateSummary> currentImageSummaries(NodeInfo info) {
        if (info.imageStates().isEmpty()) {
            return Map.of();
        }
        Map<String, ImageStateSummary> summaries = new HashMap<>(info.imageStates().size() * 2);
        info.imageStates().forEach((name, summary) -> {
            ImageState state = imageStates.get(name);
            summaries.put(name, state == null ? summary : new ImageStateSummary(state.size, state.nodes.size()));
        });
        return summaries;
    }

    public synchronized int nodeCount() {
        return nodesWithObject;
    }

    public synchronized int podCount() {
        return podStates.size();
    }
}
