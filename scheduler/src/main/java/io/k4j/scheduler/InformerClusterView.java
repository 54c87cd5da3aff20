package io.k4j.scheduler;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.scheduler.framework.ClusterView;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.Selectors;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/** {@link ClusterView} over the controller-kit's informer listers. Thread-safe. */
final class InformerClusterView implements ClusterView {
    private final Lister<Namespace> namespaces;
    private final Lister<PodDisruptionBudget> budgets;
    private final Lister<Service> services;
    private final Lister<ReplicationController> replicationControllers;
    private final Lister<ReplicaSet> replicaSets;
    private final Lister<StatefulSet> statefulSets;

    InformerClusterView(Lister<Namespace> namespaces, Lister<PodDisruptionBudget> budgets, Lister<Service> services,
            Lister<ReplicationController> replicationControllers, Lister<ReplicaSet> replicaSets, Lister<StatefulSet> statefulSets) {
        this.namespaces = requireNonNull(namespaces, "namespaces is null");
        this.budgets = requireNonNull(budgets, "budgets is null");
        this.services = requireNonNull(services, "services is null");
        this.replicationControllers = requireNonNull(replicationControllers, "replicationControllers is null");
        this.replicaSets = requireNonNull(replicaSets, "replicaSets is null");
        this.statefulSets = requireNonNull(statefulSets, "statefulSets is null");
    }

    @Override
    public Map<String, String> namespaceLabels(String namespace) {
        return namespaces.get(namespace).map(found -> found.getMetadata().getLabels() == null ? Map.<String, String>of() : found.getMetadata().getLabels())
                .orElse(Map.of());
    }

    @Override
    public List<PodDisruptionBudget> podDisruptionBudgets() {
        return budgets.list();
    }

    @Override
    public Optional<Predicate<Map<String, String>>> defaultSpreadSelector(PodInfo pod) {
        List<Predicate<Map<String, String>>> selectors = new ArrayList<>();
        Map<String, String> labels = pod.labels();
        for (Service service : services.list(pod.namespace())) {
            Map<String, String> selector = service.getSpec() == null ? null : service.getSpec().getSelector();
            if (selector != null && !selector.isEmpty() && matchesMap(selector, labels)) {
                selectors.add(candidate -> matchesMap(selector, candidate));
            }
        }
        for (ReplicationController controller : replicationControllers.list(pod.namespace())) {
            Map<String, String> selector = controller.getSpec() == null ? null : controller.getSpec().getSelector();
            if (selector != null && !selector.isEmpty() && matchesMap(selector, labels)) {
                selectors.add(candidate -> matchesMap(selector, candidate));
            }
        }
        for (ReplicaSet replicaSet : replicaSets.list(pod.namespace())) {
            if (replicaSet.getSpec() != null && replicaSet.getSpec().getSelector() != null) {
                Predicate<Map<String, String>> selector = Selectors.labelSelector(replicaSet.getSpec().getSelector());
                if (selector.test(labels)) {
                    selectors.add(selector);
                }
            }
        }
        for (StatefulSet statefulSet : statefulSets.list(pod.namespace())) {
            if (statefulSet.getSpec() != null && statefulSet.getSpec().getSelector() != null) {
                Predicate<Map<String, String>> selector = Selectors.labelSelector(statefulSet.getSpec().getSelector());
                if (selector.test(labels)) {
                    selectors.add(selector);
                }
            }
        }
        if (selectors.isEmpty()) {
            return Optional.empty();
        }
        List<Predicate<Map<String, String>>> all = List.copyOf(selectors);
        return Optional.of(candidate -> {
            for (Predicate<Map<String, String>> selector : all) {
                if (!selector.test(candidate)) {
                    return false;
                }
            }
            return true;
        });
    }

    private static boolean matchesMap(Map<String, String> selector, Map<String, String> labels) {
        for (Map.Entry<String, String> entry : selector.entrySet()) {
            if (!entry.getValue().equals(labels.get(entry.getKey()))) {
                return false;
            }
        }
        return true;
    }
}
