package io.k4j.scheduler.plugins.interpodaffinity;

import static java.util.Objects.requireNonNull;

/**
 * A topology domain: a node label key and its value.
 *
 * @param key the topology key, e.g. {@code topology.kubernetes.io/zone}
 * @param value the label's value on the node
 */
record TopologyPair(String key, String value) {
    TopologyPair {
        requireNonNull(key, "key is null");
        requireNonNull(value, "value is null");
    }
}
