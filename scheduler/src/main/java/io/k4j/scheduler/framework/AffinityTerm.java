package io.k4j.scheduler.framework;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A parsed pod (anti-)affinity term: the namespaces it looks in (a list and/or a namespace selector), the label
 * selector over pods and the topology key. Immutable and thread-safe.
 *
 * @param namespaces the listed namespaces (the owning pod's namespace when neither list nor selector is given)
 * @param namespaceSelector a selector over namespace labels, null when the term has none
 * @param selector the selector over the other pods' labels
 * @param topologyKey the node label that defines the topology domain
 * @param weight the weight of a preferred term, 0 for a required one
 */
public record AffinityTerm(Set<String> namespaces, Predicate<Map<String, String>> namespaceSelector,
        Predicate<Map<String, String>> selector, String topologyKey, int weight) {
    public AffinityTerm {
        namespaces = Set.copyOf(requireNonNull(namespaces, "namespaces is null"));
        requireNonNull(selector, "selector is null");
        requireNonNull(topologyKey, "topologyKey is null");
    }

    static AffinityTerm of(String podNamespace, PodAffinityTerm term, int weight) {
        Set<String> namespaces;
        if ((term.getNamespaces() == null || term.getNamespaces().isEmpty()) && term.getNamespaceSelector() == null) {
            namespaces = Set.of(podNamespace);
        } else {
            namespaces = term.getNamespaces() == null ? Set.of() : Set.copyOf(term.getNamespaces());
        }
        Predicate<Map<String, String>> namespaceSelector = term.getNamespaceSelector() == null ? null : Selectors.labelSelector(term.getNamespaceSelector());
        return new AffinityTerm(namespaces, namespaceSelector, Selectors.labelSelector(term.getLabelSelector()),
                term.getTopologyKey() == null ? "" : term.getTopologyKey(), weight);
    }

    /** Whether another pod falls under this term, given the labels of that pod's namespace. */
    public boolean matches(PodInfo pod, Map<String, String> namespaceLabels) {
        if (namespaces.contains(pod.namespace()) || (namespaceSelector != null && namespaceSelector.test(namespaceLabels))) {
            return selector.test(pod.labels());
        }
        return false;
    }
}
