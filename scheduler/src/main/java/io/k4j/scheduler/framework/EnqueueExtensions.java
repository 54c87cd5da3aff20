package io.k4j.scheduler.framework;

import java.util.List;

/**
 * Implemented by plugins that reject pods, to name the cluster events after which a rejected pod is worth retrying.
 * A plugin that rejects without implementing this is treated as interested in every event, as upstream.
 */
public interface EnqueueExtensions {
    List<ClusterEvent> eventsToRegister();
}
