package io.k4j.scheduler.framework;

import java.util.Set;

/**
 * What a PreFilter plugin may say about the nodes worth filtering: null {@code nodeNames} means all of them.
 *
 * @param nodeNames the only nodes that can fit, or null for no restriction
 */
public record PreFilterResult(Set<String> nodeNames) {
    public static final PreFilterResult ALL_NODES = new PreFilterResult(null);

    public PreFilterResult {
        nodeNames = nodeNames == null ? null : Set.copyOf(nodeNames);
    }

    public boolean allNodes() {
        return nodeNames == null;
    }

    /** The intersection of two results. */
    public PreFilterResult merge(PreFilterResult other) {
        if (other == null || other.allNodes()) {
            return this;
        }
        if (allNodes()) {
            return other;
        }
        return new PreFilterResult(nodeNames.stream().filter(other.nodeNames::contains).collect(java.util.stream.Collectors.toSet()));
    }
}
