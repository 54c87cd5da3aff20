package io.k4j.controllers.nodelifecycle;

import java.util.Collection;

/**
 * How healthy a zone is, as upstream computes it to decide how fast nodes there may be tainted for eviction: a zone
 * losing most of its nodes at once more likely has a network problem than many broken nodes, so evicting everything
 * would only make it worse.
 */
enum ZoneState {
    NORMAL,
    PARTIAL_DISRUPTION,
    FULL_DISRUPTION;

    /** Upstream's {@code --unhealthy-zone-threshold}. */
    static final double UNHEALTHY_ZONE_THRESHOLD = 0.55;

    /** @param ready one entry per node of the zone: whether its Ready condition is True */
    static ZoneState of(Collection<Boolean> ready) {
        long readyNodes = ready.stream().filter(Boolean::booleanValue).count();
        long notReadyNodes = ready.size() - readyNodes;
        if (readyNodes == 0 && notReadyNodes > 0) {
            return FULL_DISRUPTION;
        }
        if (notReadyNodes > 2 && (double) notReadyNodes / (notReadyNodes + readyNodes) >= UNHEALTHY_ZONE_THRESHOLD) {
            return PARTIAL_DISRUPTION;
        }
        return NORMAL;
    }
}
