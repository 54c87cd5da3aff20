package io.k4j.scheduler;

import io.fabric8.kubernetes.api.model.Pod;

/** The current version of a pod as the informer cache holds it. Implementations are thread-safe. */
@FunctionalInterface
public interface PodLookup {
    /** The pod, or null when it no longer exists. */
    Pod get(String namespace, String name);
}
