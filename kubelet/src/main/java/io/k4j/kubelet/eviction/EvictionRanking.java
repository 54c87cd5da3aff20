package io.k4j.kubelet.eviction;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Orders the pods to evict for a starved resource as upstream: pods without usage statistics first, then pods using
 * more than they requested, then lower priority first, then by how far usage exceeds requests, largest first.
 * Stateless and thread-safe.
 */
public final class EvictionRanking {
    private EvictionRanking() {}

    /** The pods in eviction order for {@code resource} ({@code memory}, {@code ephemeral-storage}, {@code inodes}). */
    public static List<Pod> rank(List<Pod> pods, Map<String, PodUsage> usage, String resource) {
        Comparator<Pod> withoutStatsFirst = Comparator.comparing(pod -> usage.containsKey(uid(pod)));
        Comparator<Pod> exceedingFirst = Comparator.comparing(pod -> !exceedsRequests(pod, usage.get(uid(pod)), resource));
        Comparator<Pod> lowerPriorityFirst = Comparator.comparingInt(EvictionRanking::priority);
        Comparator<Pod> largerExcessFirst = Comparator.comparingLong(pod -> -excess(pod, usage.get(uid(pod)), resource));
        List<Pod> ranked = new ArrayList<>(pods);
        ranked.sort(withoutStatsFirst.thenComparing(exceedingFirst).thenComparing(lowerPriorityFirst)
                .thenComparing(largerExcessFirst));
        return ranked;
    }

    private static boolean exceedsRequests(Pod pod, PodUsage usage, String resource) {
        return usage != null && usage.total(resource) > request(pod, resource);
    }

    private static long excess(Pod pod, PodUsage usage, String resource) {
        return usage == null ? Long.MAX_VALUE : usage.total(resource) - request(pod, resource);
    }

    static int priority(Pod pod) {
        Integer priority = pod.getSpec() == null ? null : pod.getSpec().getPriority();
        return priority == null ? 0 : priority;
    }

    /** The pod's request of a resource: its containers' sum, or its largest init container's if larger. */
    static long request(Pod pod, String resource) {
        if (pod.getSpec() == null || resource.equals("inodes")) {
            return 0;
        }
        long containers = 0;
        for (Container container : pod.getSpec().getContainers() == null ? List.<Container>of() : pod.getSpec().getContainers()) {
            containers += containerRequest(container, resource);
        }
        long init = 0;
        for (Container container : pod.getSpec().getInitContainers() == null ? List.<Container>of() : pod.getSpec().getInitContainers()) {
            init = Math.max(init, containerRequest(container, resource));
        }
        return Math.max(containers, init);
    }

    static long containerRequest(Container container, String resource) {
        if (container.getResources() == null || container.getResources().getRequests() == null) {
            return 0;
        }
        Quantity quantity = container.getResources().getRequests().get(resource);
        return quantity == null ? 0 : io.k4j.api.quantity.Quantity.parse(quantity.toString()).value();
    }

    private static String uid(Pod pod) {
        return pod.getMetadata().getUid();
    }
}
