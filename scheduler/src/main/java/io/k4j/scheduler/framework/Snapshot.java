package io.k4j.scheduler.framework;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The cluster as one scheduling cycle sees it: a NodeInfo per node, in a stable order, plus the nodes that host pods
 * with (required anti-)affinity. The scheduler cache refreshes it between cycles by replacing only the NodeInfos
 * whose generation changed; during a cycle it is read-only, so parallel filters may read it freely. Refreshing is
 * not thread-safe and happens only on the scheduling thread.
 */
public final class Snapshot {
    private final Map<String, NodeInfo> nodeInfoMap = new HashMap<>();
    private final Map<String, Integer> positions = new HashMap<>();
    private final List<NodeInfo> nodeInfoList = new ArrayList<>();
    private List<NodeInfo> havePodsWithAffinity = List.of();
    private List<NodeInfo> havePodsWithRequiredAntiAffinity = List.of();
    private long generation;

    /** A snapshot of fixed NodeInfos, for tests and simulations. */
    public static Snapshot of(List<NodeInfo> nodeInfos) {
        Snapshot snapshot = new Snapshot();
        for (NodeInfo nodeInfo : nodeInfos) {
            snapshot.put(nodeInfo);
        }
        snapshot.rebuildAffinityLists();
        return snapshot;
    }

    public List<NodeInfo> list() {
        return nodeInfoList;
    }

    public NodeInfo get(String nodeName) {
        return nodeInfoMap.get(nodeName);
    }

    public int numNodes() {
        return nodeInfoList.size();
    }

    public List<NodeInfo> havePodsWithAffinity() {
        return havePodsWithAffinity;
    }

    public List<NodeInfo> havePodsWithRequiredAntiAffinity() {
        return havePodsWithRequiredAntiAffinity;
    }

    /** The highest NodeInfo generation this snapshot reflects. */
    public long generation() {
        return generation;
    }

    public void setGeneration(long generation) {
        this.generation = generation;
    }

    /** Adds or replaces a node's NodeInfo. */
    public void put(NodeInfo nodeInfo) {
        Integer position = positions.get(nodeInfo.name());
        if (position == null) {
            positions.put(nodeInfo.name(), nodeInfoList.size());
            nodeInfoList.add(nodeInfo);
        } else {
            nodeInfoList.set(position, nodeInfo);
        }
        nodeInfoMap.put(nodeInfo.name(), nodeInfo);
    }

    /** Removes a node, moving the last node into its position. */
    public void remove(String nodeName) {
        Integer position = positions.remove(nodeName);
        if (position == null) {
            return;
        }
        nodeInfoMap.remove(nodeName);
        NodeInfo last = nodeInfoList.remove(nodeInfoList.size() - 1);
        if (position < nodeInfoList.size()) {
            nodeInfoList.set(position, last);
            positions.put(last.name(), position);
        }
    }

    public java.util.Set<String> nodeNames() {
        return nodeInfoMap.keySet();
    }

    public void rebuildAffinityLists() {
        List<NodeInfo> withAffinity = new ArrayList<>();
        List<NodeInfo> withAntiAffinity = new ArrayList<>();
        for (NodeInfo nodeInfo : nodeInfoList) {
            if (!nodeInfo.podsWithAffinity().isEmpty()) {
                withAffinity.add(nodeInfo);
            }
            if (!nodeInfo.podsWithRequiredAntiAffinity().isEmpty()) {
                withAntiAffinity.add(nodeInfo);
            }
        }
        havePodsWithAffinity = withAffinity;
        havePodsWithRequiredAntiAffinity = withAntiAffinity;
    }
}
