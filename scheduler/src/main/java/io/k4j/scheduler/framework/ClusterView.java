package io.k4j.scheduler.framework;

import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Read access to the cluster objects plugins need besides nodes and pods, backed by informer caches in production and
 * by plain maps in tests. Implementations are thread-safe.
 */
public interface ClusterView {
    /** The labels of a namespace (empty when unknown), for affinity terms with a namespace selector. */
    Map<String, String> namespaceLabels(String namespace);

    /** All PodDisruptionBudgets, for preemption to prefer victims whose eviction violates none. */
    List<PodDisruptionBudget> podDisruptionBudgets();

    /**
     * The selector that PodTopologySpread's default constraints use for a pod: what selects it from its services,
     * replication controllers, replica sets and stateful sets combined (upstream's {@code helper.DefaultSelector}),
     * empty when nothing selects it.
     */
    Optional<Predicate<Map<String, String>>> defaultSpreadSelector(PodInfo pod);

    /** A view with no namespaces, budgets or owners. */
    static ClusterView empty() {
        return new ClusterView() {
            @Override
            public Map<String, String> namespaceLabels(String namespace) {
                return Map.of();
            }

            @Override
            public List<PodDisruptionBudget> podDisruptionBudgets() {
                return List.of();
            }

            @Override
            public Optional<Predicate<Map<String, String>>> defaultSpreadSelector(PodInfo pod) {
                return Optional.empty();
            }
        };
    }
}
