package io.k4j.scheduler.framework;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSpec;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Aggregated scheduling information of one node: the node, its pods (bound and assumed), the resources they request,
 * the host ports they use, the images present and the pods with (anti-)affinity. The scheduler cache keeps one
 * mutable instance per node; snapshots hold copies that are never changed once a cycle reads them. Not thread-safe.
 */
public final class NodeInfo {
    private static final AtomicLong NEXT_GENERATION = new AtomicLong();

    private Node node;
    /**
     * The node's labels, kept beside the node: plugins read a topology label of every node per cycle, and reaching it
     * through the node's metadata costs two more dereferences each time.
     */
    private Map<String, String> labels = Map.of();
    /**
     * The node's taints and whether it is cordoned, kept beside the node for the same reason: the filters read them
     * for every node they try, and the node object is one more cache miss each time.
     */
    private List<Taint> taints = List.of();
    private boolean unschedulable;
    private String name;
    private final List<PodInfo> pods;
    private final List<PodInfo> podsWithAffinity;
    private final List<PodInfo> podsWithRequiredAntiAffinity;
    private final List<HostPort> usedPorts;
    private final Resource requested;
    private final Resource nonZeroRequested;
    private Resource allocatable;
    private Map<String, ImageStateSummary> imageStates;
    private long generation;
    /**
     * The CPU, memory and pod figures of {@code allocatable}, {@code requested} and {@code nonZeroRequested}, and the
     * pod count, kept in this object as well: the resource filter and scores read them for every node a cycle tries,
     * and each of those objects is one more cache miss per node (measured with 5,000 nodes, most of a filter's time).
     */
    private int podCount;
    private long allocatableMilliCpu;
    private long allocatableMemory;
    private long allowedPodNumber;
    private long requestedMilliCpu;
    private long requestedMemory;
    private long nonZeroRequestedMilliCpu;
    private long nonZeroRequestedMemory;

    public NodeInfo() {
        this.pods = new ArrayList<>();
        this.podsWithAffinity = new ArrayList<>();
        this.podsWithRequiredAntiAffinity = new ArrayList<>();
        this.usedPorts = new ArrayList<>();
        this.requested = new Resource();
        this.nonZeroRequested = new Resource();
        this.allocatable = new Resource();
        this.imageStates = Map.of();
        this.name = "";
        this.generation = nextGeneration();
    }

    private NodeInfo(NodeInfo other) {
        this.node = other.node;
        this.labels = other.labels;
        this.taints = other.taints;
        this.unschedulable = other.unschedulable;
        this.name = other.name;
        this.pods = new ArrayList<>(other.pods);
        this.podsWithAffinity = new ArrayList<>(other.podsWithAffinity);
        this.podsWithRequiredAntiAffinity = new ArrayList<>(other.podsWithRequiredAntiAffinity);
        this.usedPorts = new ArrayList<>(other.usedPorts);
        this.requested = other.requested.copy();
        this.nonZeroRequested = other.nonZeroRequested.copy();
        this.allocatable = other.allocatable;
        this.imageStates = other.imageStates;
        this.generation = other.generation;
        this.podCount = other.podCount;
        this.allocatableMilliCpu = other.allocatableMilliCpu;
        this.allocatableMemory = other.allocatableMemory;
        this.allowedPodNumber = other.allowedPodNumber;
        this.requestedMilliCpu = other.requestedMilliCpu;
        this.requestedMemory = other.requestedMemory;
        this.nonZeroRequestedMilliCpu = other.nonZeroRequestedMilliCpu;
        this.nonZeroRequestedMemory = other.nonZeroRequestedMemory;
    }

    /** A NodeInfo for a node and its pods, as tests and simulations build them. */
    public static NodeInfo of(Node node, PodInfo... pods) {
        NodeInfo nodeInfo = new NodeInfo();
        nodeInfo.setNode(node);
        for (PodInfo pod : pods) {
            nodeInfo.addPod(pod);
        }
        return nodeInfo;
    }

    public static long nextGeneration() {
        return NEXT_GENERATION.incrementAndGet();
    }

    /** An independent copy with the same generation. */
    public NodeInfo copy() {
        return new NodeInfo(this);
    }

    /** The node, or null while only pods bound to a not-yet-seen node are known. */
    public Node node() {
        return node;
    }

    public String name() {
        return name;
    }

    /** The node's {@code spec.taints}; empty without a node. */
    public List<Taint> taints() {
        return taints;
    }

    /** Whether the node is cordoned ({@code spec.unschedulable}). */
    public boolean unschedulable() {
        return unschedulable;
    }

    public void setNode(Node node) {
        this.node = node;
        this.labels = node.getMetadata().getLabels() == null ? Map.of() : Map.copyOf(node.getMetadata().getLabels());
        NodeSpec spec = node.getSpec();
        List<Taint> nodeTaints = spec == null ? null : spec.getTaints();
        // An empty list becomes the shared one, which stays in the CPU's cache: most nodes have no taints.
        this.taints = nodeTaints == null || nodeTaints.isEmpty() ? List.of() : nodeTaints;
        this.unschedulable = spec != null && Boolean.TRUE.equals(spec.getUnschedulable());
        this.name = node.getMetadata().getName();
        this.allocatable = node.getStatus() == null ? new Resource() : Resource.of(node.getStatus().getAllocatable());
        this.allocatableMilliCpu = allocatable.milliCpu;
        this.allocatableMemory = allocatable.memory;
        this.allowedPodNumber = allocatable.allowedPodNumber;
        this.generation = nextGeneration();
    }

    /** Forgets the node object but keeps its pods, as upstream does while pods of a deleted node remain. */
    public void removeNode() {
        this.node = null;
        this.labels = Map.of();
        this.taints = List.of();
        this.unschedulable = false;
        this.generation = nextGeneration();
    }

    public void setImageStates(Map<String, ImageStateSummary> imageStates) {
        this.imageStates = Map.copyOf(imageStates);
        this.generation = nextGeneration();
    }

    /** Replaces the image summaries of a snapshot copy without changing its generation. */
    public void refreshImageStates(Map<String, ImageStateSummary> imageStates) {
        this.imageStates = Map.copyOf(imageStates);
    }

    public Map<String, ImageStateSummary> imageStates() {
        return imageStates;
    }

    public List<PodInfo> pods() {
        return pods;
    }

    public List<PodInfo> podsWithAffinity() {
        return podsWithAffinity;
    }

    public List<PodInfo> podsWithRequiredAntiAffinity() {
        return podsWithRequiredAntiAffinity;
    }

    public List<HostPort> usedPorts() {
        return usedPorts;
    }

    /** The sum of the pods' requests; do not modify. */
    public Resource requested() {
        return requested;
    }

    /** The sum of the pods' non-zero requests (scoring's view); do not modify. */
    public Resource nonZeroRequested() {
        return nonZeroRequested;
    }

    /** The node's allocatable resources; do not modify. */
    public Resource allocatable() {
        return allocatable;
    }

    /** {@code pods().size()}, without reaching the list. */
    public int podCount() {
        return podCount;
    }

    /** {@code allocatable().milliCpu}, without reaching the object; likewise the five below. */
    public long allocatableMilliCpu() {
        return allocatableMilliCpu;
    }

    public long allocatableMemory() {
        return allocatableMemory;
    }

    public long allowedPodNumber() {
        return allowedPodNumber;
    }

    public long requestedMilliCpu() {
        return requestedMilliCpu;
    }

    public long requestedMemory() {
        return requestedMemory;
    }

    public long nonZeroRequestedMilliCpu() {
        return nonZeroRequestedMilliCpu;
    }

    public long nonZeroRequestedMemory() {
        return nonZeroRequestedMemory;
    }

    public long generation() {
        return generation;
    }

    public String label(String key) {
        return labels.get(key);
    }

    /** The node's labels (unmodifiable; empty without a node). */
    public Map<String, String> labels() {
        return labels;
    }

    public void addPod(PodInfo pod) {
        pods.add(pod);
        if (pod.hasAffinity()) {
            podsWithAffinity.add(pod);
        }
        if (!pod.requiredAntiAffinityTerms().isEmpty()) {
            podsWithRequiredAntiAffinity.add(pod);
        }
        requested.add(pod.requests());
        nonZeroRequested.add(pod.nonZeroRequests());
        keepRequestedFigures();
        usedPorts.addAll(pod.hostPorts());
        generation = nextGeneration();
    }

    /** Removes the pod with the given UID; returns whether it was there. */
    public boolean removePod(String uid) {
        PodInfo removed = null;
        for (int i = 0; i < pods.size(); i++) {
            if (pods.get(i).uid().equals(uid)) {
                removed = pods.remove(i);
                break;
            }
        }
        if (removed == null) {
            return false;
        }
        removeByUid(podsWithAffinity, uid);
        removeByUid(podsWithRequiredAntiAffinity, uid);
        requested.subtract(removed.requests());
        nonZeroRequested.subtract(removed.nonZeroRequests());
        keepRequestedFigures();
        for (HostPort port : removed.hostPorts()) {
            usedPorts.remove(port);
        }
        generation = nextGeneration();
        return true;
    }

    private void keepRequestedFigures() {
        podCount = pods.size();
        requestedMilliCpu = requested.milliCpu;
        requestedMemory = requested.memory;
        nonZeroRequestedMilliCpu = nonZeroRequested.milliCpu;
        nonZeroRequestedMemory = nonZeroRequested.memory;
    }

    private static void removeByUid(List<PodInfo> list, String uid) {
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i).uid().equals(uid)) {
                list.remove(i);
                return;
            }
        }
    }

    @Override
    public String toString() {
        return "NodeInfo[" + name + ", pods=" + pods.size() + ", requested=" + requested + "]";
    }
}
