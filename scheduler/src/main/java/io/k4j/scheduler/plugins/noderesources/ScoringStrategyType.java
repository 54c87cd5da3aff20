package io.k4j.scheduler.plugins.noderesources;

/** NodeResourcesFit's scoring strategies. */
public enum ScoringStrategyType {
    /** Prefers nodes with the most free resources (spreads pods). */
    LEAST_ALLOCATED("LeastAllocated"),
    /** Prefers nodes with the least free resources (bin packing). */
    MOST_ALLOCATED("MostAllocated"),
    /** Scores by a piecewise-linear function of utilization given as shape points. */
    REQUESTED_TO_CAPACITY_RATIO("RequestedToCapacityRatio");

    private final String configName;

    ScoringStrategyType(String configName) {
        this.configName = configName;
    }

    public String configName() {
        return configName;
    }

    /**
     * @throws IllegalArgumentException naming the field when the value is unknown
     */
    public static ScoringStrategyType fromConfigName(String name) {
        for (ScoringStrategyType type : values()) {
            if (type.configName.equals(name)) {
                return type;
            }
        }
        throw new IllegalArgumentException("scoringStrategy.type: Unsupported value: \"" + name
                + "\": supported values: \"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\"");
    }
}
