package io.k4j.scheduler.framework;

import java.util.List;

/** Runs once per cycle before Score with the feasible nodes, to compute what Score needs. */
public interface PreScorePlugin extends Plugin {
    /** {@link Status#SKIP} turns off this plugin's Score for the cycle. */
    Status preScore(CycleState state, PodInfo pod, List<NodeInfo> nodes);
}
