package io.k4j.scheduler.framework;

import static java.util.Objects.requireNonNull;

/**
 * The outcome of a PostFilter plugin (preemption).
 *
 * @param status success when the pod may become schedulable (for example victims were deleted)
 * @param nominatedNodeName the node the pod is nominated to, empty for none
 */
public record PostFilterResult(Status status, String nominatedNodeName) {
    public PostFilterResult {
        requireNonNull(status, "status is null");
        requireNonNull(nominatedNodeName, "nominatedNodeName is null");
    }
}
