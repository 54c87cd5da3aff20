package io.k4j.scheduler.framework;

import java.util.List;

/**
 * Ranks feasible nodes. Scores are in [0, {@link #MAX_NODE_SCORE}] after {@link #normalizeScores}; the framework
 * multiplies them by the plugin's configured weight and sums over plugins.
 */
public interface ScorePlugin extends Plugin {
    long MAX_NODE_SCORE = 100;
    long MIN_NODE_SCORE = 0;

    /**
     * The node's raw score. Called in parallel over nodes.
     *
     * @throws PluginException when the score cannot be computed (the cycle fails with an error status)
     */
    long score(CycleState state, PodInfo pod, NodeInfo nodeInfo);

    /** Rescales the raw scores of {@code nodes} in place (same order); the default leaves them. */
    default void normalizeScores(CycleState state, PodInfo pod, List<NodeInfo> nodes, long[] scores) {}

    /** Scales scores to [0, 100] by the maximum, optionally reversed (upstream's DefaultNormalizeScore). */
    static void defaultNormalize(long maxPriority, boolean reverse, long[] scores) {
        long max = 0;
        for (long score : scores) {
            max = Math.max(max, score);
        }
        if (max == 0) {
            if (reverse) {
                java.util.Arrays.fill(scores, maxPriority);
            }
            return;
        }
        for (int i = 0; i < scores.length; i++) {
            long score = maxPriority * scores[i] / max;
            scores[i] = reverse ? maxPriority - score : score;
        }
    }
}
