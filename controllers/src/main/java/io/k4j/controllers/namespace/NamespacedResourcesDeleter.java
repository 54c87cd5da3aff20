package io.k4j.controllers.namespace;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NamespaceStatus;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.k4j.controllers.dynamic.ApiResource;
import io.k4j.controllers.dynamic.ResourceDiscovery;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Empties a namespace that is being deleted, as upstream's {@code namespacedResourcesDeleter}: marks it Terminating,
 * deletes every namespaced resource in it (pods first, so their grace periods start early; one deletecollection per
 * resource where allowed, else list and delete), reports progress in the status conditions, and once nothing is
 * left removes the {@code kubernetes} finalizer so the apiserver deletes the namespace. Thread-safe (stateless
 * apart from its collaborators).
 */
final class NamespacedResourcesDeleter {
    private static final Logger LOG = LoggerFactory.getLogger("namespace-controller");
    static final String KUBERNETES_FINALIZER = "kubernetes";
    /** Upstream's wait when remaining content only has finalizers to finish: garbage collection needs a moment. */
    static final long FINALIZER_ESTIMATE_SECONDS = 15;

    private final NamespaceClient client;
    private final InstantSource clock;

    NamespacedResourcesDeleter(NamespaceClient client, InstantSource clock) {
        this.client = requireNonNull(client, "client is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** Thrown when content remains that should already be gone: retried with backoff. */
    static final class ContentRemainingException extends RuntimeException {
        ContentRemainingException(String message) {
            super(message);
        }
    }

    /**
     * One pass over a namespace. Returns how long to wait before the next pass when content is still going away
     * gracefully, empty when done (or nothing to do); throws to retry with backoff.
     */
    Optional<Duration> delete(Namespace namespace) {
        if (namespace.getMetadata().getDeletionTimestamp() == null) {
            return Optional.empty();
        }
        Namespace current = namespace;
        if (!"Terminating".equals(phase(current))) {
            Namespace terminating = new NamespaceBuilder(current).editOrNewStatus().withPhase("Terminating").endStatus().build();
            current = client.updateStatus(terminating);
        }
        if (!finalizers(current).contains(KUBERNETES_FINALIZER)) {
            return Optional.empty();
        }
        String name = current.getMetadata().getName();
        NamespaceConditions conditions = new NamespaceConditions(clock.instant());
        ResourceDiscovery.Discovered discovered = client.discover();
        if (!discovered.failures().isEmpty()) {
            conditions.discoveryFailed(discovered.failures());
        }
        long estimate = 0;
        Map<String, Integer> remainingByResource = new TreeMap<>();
        Map<String, Integer> remainingByFinalizer = new TreeMap<>();
        List<String> errors = new ArrayList<>();
        for (ApiResource resource : deletionOrder(discovered.resources())) {
            try {
                Remaining remaining = deleteAllOf(resource, name);
                estimate = Math.max(estimate, remaining.estimateSeconds());
                if (remaining.count() > 0) {
                    remainingByResource.merge(resource.plural() + "." + resource.group(), remaining.count(), Integer::sum);
                }
                remaining.finalizers().forEach((finalizer, count) -> remainingByFinalizer.merge(finalizer, count, Integer::sum));
            } catch (KubernetesClientException | ContentRemainingException e) {
                errors.add(e.getMessage());
            }
        }
        conditions.contentDeletionFailed(errors);
        conditions.contentRemaining(remainingByResource, remainingByFinalizer);
        current = updateConditions(current, conditions);
        if (!errors.isEmpty()) {
            throw new ContentRemainingException("failed to delete all content of namespace " + name + ": " + String.join("; ", errors));
        }
        if (estimate > 0) {
            LOG.debug("namespace {}: content remaining, checking again in {}s", name, estimate);
            return Optional.of(Duration.ofSeconds(estimate));
        }
        if (!discovered.failures().isEmpty()) {
            // Content of a group that did not answer may remain: never finalize on a partial view.
            throw new ContentRemainingException("discovery failed for namespace " + name + ": " + String.join(", ", discovered.failures()));
        }
        Namespace finalized = new NamespaceBuilder(current).editOrNewSpec()
                .withFinalizers(finalizers(current).stream().filter(finalizer -> !finalizer.equals(KUBERNETES_FINALIZER)).toList())
                .endSpec().build();
        client.finalizeNamespace(finalized);
        LOG.info("namespace {} is empty; removed the kubernetes finalizer", name);
        return Optional.empty();
    }

    private record Remaining(int count, Map<String, Integer> finalizers, long estimateSeconds) {}

    private Remaining deleteAllOf(ApiResource resource, String namespace) {
        long estimate = 0;
        boolean pods = resource.group().isEmpty() && resource.plural().equals("pods");
        if (pods) {
            estimate = estimateGracefulTermination(client.list(resource, namespace));
        }
        if (resource.supports("deletecollection")) {
            client.deleteCollection(resource, namespace);
        } else {
            for (GenericKubernetesResource object : client.list(resource, namespace)) {
                if (object.getMetadata().getDeletionTimestamp() == null) {
                    client.delete(resource, namespace, object.getMetadata().getName());
                }
            }
        }
        List<GenericKubernetesResource> left = client.list(resource, namespace);
        if (left.isEmpty()) {
            return new Remaining(0, Map.of(), 0);
        }
        Map<String, Integer> finalizers = new TreeMap<>();
        boolean anyFinalizer = false;
        for (GenericKubernetesResource object : left) {
            List<String> objectFinalizers = object.getMetadata().getFinalizers() == null ? List.of() : object.getMetadata().getFinalizers();
            objectFinalizers.forEach(finalizer -> finalizers.merge(finalizer, 1, Integer::sum));
            anyFinalizer |= !objectFinalizers.isEmpty();
        }
        if (estimate == 0) {
            if (!anyFinalizer && !pods) {
                throw new ContentRemainingException("unexpected items still remain in namespace: " + namespace + " for gvr: "
                        + resource.group() + "/" + resource.version() + ", Resource=" + resource.plural());
            }
            // Pods going away with a grace period already running, or finalizers to finish: look again shortly.
            estimate = anyFinalizer ? FINALIZER_ESTIMATE_SECONDS : remainingGrace(left);
        }
        return new Remaining(left.size(), finalizers, estimate);
    }

    /** The longest grace period of the namespace's running pods, as upstream's {@code estimateGracefulTerminationForPods}. */
    private static long estimateGracefulTermination(List<GenericKubernetesResource> pods) {
        long estimate = 0;
        for (GenericKubernetesResource pod : pods) {
            String phase = pod.get("status", "phase");
            if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
                continue;
            }
            Number grace = pod.get("spec", "terminationGracePeriodSeconds");
            long seconds = grace == null ? 0 : grace.longValue();
            if (pod.getMetadata().getDeletionGracePeriodSeconds() != null) {
                seconds = pod.getMetadata().getDeletionGracePeriodSeconds();
            }
            estimate = Math.max(estimate, seconds);
        }
        return estimate;
    }

    private static long remainingGrace(List<GenericKubernetesResource> pods) {
        return Math.max(1, estimateGracefulTermination(pods));
    }

    /** Pods first (graceful termination takes longest), then everything else in discovery order. */
    static List<ApiResource> deletionOrder(List<ApiResource> resources) {
        List<ApiResource> ordered = new ArrayList<>();
        for (ApiResource resource : resources) {
            if (resource.namespaced() && resource.supports("delete") && resource.group().isEmpty() && resource.plural().equals("pods")) {
                ordered.add(resource);
            }
        }
        for (ApiResource resource : resources) {
            if (resource.namespaced() && resource.supports("delete") && !(resource.group().isEmpty() && resource.plural().equals("pods"))) {
                ordered.add(resource);
            }
        }
        return ordered;
    }

    private Namespace updateConditions(Namespace namespace, NamespaceConditions conditions) {
        Namespace copy = new NamespaceBuilder(namespace).build();
        if (copy.getStatus() == null) {
            copy.setStatus(new NamespaceStatus());
        }
        if (!conditions.apply(copy.getStatus())) {
            return namespace;
        }
        try {
            return client.updateStatus(copy);
        } catch (KubernetesClientException e) {
            // Conditions are reporting only; a conflict must not stop the deletion itself.
            LOG.debug("namespace {}: could not update conditions: {}", namespace.getMetadata().getName(), e.getMessage());
            return namespace;
        }
    }

    private static String phase(Namespace namespace) {
        return namespace.getStatus() == null ? null : namespace.getStatus().getPhase();
    }

    private static List<String> finalizers(Namespace namespace) {
        return namespace.getSpec() == null || namespace.getSpec().getFinalizers() == null ? List.of() : namespace.getSpec().getFinalizers();
    }
}
