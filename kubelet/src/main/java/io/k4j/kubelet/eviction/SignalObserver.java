package io.k4j.kubelet.eviction;

import java.util.Map;

/** Observes the node's eviction signals; a signal it cannot observe is absent. Implementations are thread-safe. */
@FunctionalInterface
public interface SignalObserver {
    Map<Signal, Observation> observe();
}
