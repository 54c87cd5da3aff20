package io.k4j.kubelet.admission;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The kubelet's resource fit check, as upstream's predicate admit handler: a pod whose requests (the larger of its
 * containers' sum and its largest init container, per resource) do not fit in the node's allocatable next to the
 * pods already admitted is rejected with reason {@code OutOf<resource>} (e.g. {@code OutOfcpu}) or
 * {@code OutOfpods}. Stateless and thread-safe.
 */
public final class ResourceAdmission {
    /** A rejection: the pod's {@code status.reason} and {@code status.message}. */
    public record Rejection(String reason, String message) {}

    private static final List<String> RESOURCES = List.of("cpu", "memory", "ephemeral-storage");

    private ResourceAdmission() {}

    /**
     * @param admitted the pods already admitted and not terminated
     * @param allocatable the node's allocatable resources
     */
    public static Optional<Rejection> admit(Pod pod, Collection<Pod> admitted, Map<String, Quantity> allocatable) {
        Quantity podsAllowed = allocatable.get("pods");
        if (podsAllowed != null && admitted.size() + 1 > value("pods", podsAllowed)) {
            return Optional.of(new Rejection("OutOfpods", "Pod was rejected: Node didn't have enough resource: pods, "
                    + "requested: 1, used: " + admitted.size() + ", capacity: " + value("pods", podsAllowed)));
        }
        Map<String, Long> requested = requests(pod);
        for (String resource : RESOURCES) {
            long wanted = requested.getOrDefault(resource, 0L);
            if (wanted == 0 || !allocatable.containsKey(resource)) {
                continue;
            }
            long used = 0;
            for (Pod other : admitted) {
                used += requests(other).getOrDefault(resource, 0L);
            }
            long capacity = value(resource, allocatable.get(resource));
            if (used + wanted > capacity) {
                return Optional.of(new Rejection("OutOf" + resource, "Pod was rejected: Node didn't have enough "
                        + "resource: " + resource + ", requested: " + wanted + ", used: " + used + ", capacity: "
                        + capacity));
            }
        }
        return Optional.empty();
    }

    /** The pod's effective requests: cpu in millicores, the rest in bytes. */
    public static Map<String, Long> requests(Pod pod) {
        Map<String, Long> sum = new LinkedHashMap<>();
        for (Container container : pod.getSpec().getContainers()) {
            containerRequests(container).forEach((resource, amount) -> sum.merge(resource, amount, Long::sum));
        }
        if (pod.getSpec().getInitContainers() != null) {
            for (Container init : pod.getSpec().getInitContainers()) {
                containerRequests(init).forEach((resource, amount) -> sum.merge(resource, amount, Math::max));
            }
        }
        if (pod.getSpec().getOverhead() != null) {
            pod.getSpec().getOverhead().forEach((resource, amount) ->
                    sum.merge(resource, value(resource, amount), Long::sum));
        }
        return sum;
    }

    private static Map<String, Long> containerRequests(Container container) {
        Map<String, Long> requests = new LinkedHashMap<>();
        if (container.getResources() == null) {
            return requests;
        }
        Map<String, Quantity> limits = container.getResources().getLimits() == null ? Map.of()
                : container.getResources().getLimits();
        Map<String, Quantity> declared = container.getResources().getRequests() == null ? Map.of()
                : container.getResources().getRequests();
        for (String resource : RESOURCES) {
            Quantity quantity = declared.containsKey(resource) ? declared.get(resource) : limits.get(resource);
            if (quantity != null) {
                requests.put(resource, value(resource, quantity));
            }
        }
        return requests;
    }

    private static long value(String resource, Quantity quantity) {
        io.k4j.api.quantity.Quantity parsed = io.k4j.api.quantity.Quantity.parse(quantity.toString());
        return resource.equals("cpu") ? parsed.milliValue() : parsed.value();
    }
}
