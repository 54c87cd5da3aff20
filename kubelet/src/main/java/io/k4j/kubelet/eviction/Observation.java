package io.k4j.kubelet.eviction;

/**
 * What a signal observed: how much is available of how much there is (bytes or inodes). Immutable.
 */
public record Observation(long available, long capacity) {}
