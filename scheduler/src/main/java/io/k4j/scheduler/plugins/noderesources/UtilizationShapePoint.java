package io.k4j.scheduler.plugins.noderesources;

/**
 * A point of RequestedToCapacityRatio's scoring function.
 *
 * @param utilization 0..100 percent
 * @param score 0..10, scaled to the framework's 0..100 when scoring
 */
public record UtilizationShapePoint(int utilization, int score) {}
