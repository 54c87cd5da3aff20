package io.k4j.scheduler.framework;

import java.util.List;

/**
 * Runs once per cycle before Filter: computes what Filter needs into {@link CycleState} and may reject the pod for
 * every node or narrow the nodes to consider.
 */
public interface PreFilterPlugin extends Plugin {
    /**
     * Writes this plugin's state for the cycle. A rejected status rejects the pod for all nodes; {@link Status#SKIP}
     * turns off this plugin's Filter for the cycle.
     */
    Status preFilter(CycleState state, PodInfo pod, List<NodeInfo> nodes);

    /** Restricts the nodes to filter; called only after a successful {@link #preFilter}. */
    default PreFilterResult preFilterResult(CycleState state, PodInfo pod) {
        return PreFilterResult.ALL_NODES;
    }

    /**
     * Updates the state written by {@link #preFilter} as if {@code podToAdd} ran on {@code nodeInfo} (preemption
     * and nominated pods evaluate such what-ifs); null when the plugin's state does not depend on other pods.
     */
    default PreFilterExtensions preFilterExtensions() {
        return null;
    }

    /** Incremental updates of PreFilter state for what-if evaluation. */
    interface PreFilterExtensions {
        Status addPod(CycleState state, PodInfo podToSchedule, PodInfo podToAdd, NodeInfo nodeInfo);

        Status removePod(CycleState state, PodInfo podToSchedule, PodInfo podToRemove, NodeInfo nodeInfo);
    }
}
