package io.k4j.scheduler.framework;

/**
 * What the scheduler knows of one image on one node: its size and on how many nodes it is present (the spread that
 * ImageLocality scales scores by). Immutable and thread-safe.
 *
 * @param sizeBytes the image size as the node reports it
 * @param numNodes how many nodes report the image
 */
public record ImageStateSummary(long sizeBytes, int numNodes) {}
