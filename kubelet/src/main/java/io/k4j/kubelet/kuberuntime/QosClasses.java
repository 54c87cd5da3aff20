package io.k4j.kubelet.kuberuntime;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A pod's QoS class as upstream computes it (Guaranteed, Burstable, BestEffort). Stateless. */
public final class QosClasses {
    public static final String GUARANTEED = "Guaranteed";
    public static final String BURSTABLE = "Burstable";
    public static final String BEST_EFFORT = "BestEffort";

    private QosClasses() {}

    public static String of(Pod pod) {
        List<Container> containers = new ArrayList<>(pod.getSpec().getContainers());
        if (pod.getSpec().getInitContainers() != null) {
            containers.addAll(pod.getSpec().getInitContainers());
        }
        boolean anySet = false;
        boolean guaranteed = true;
        for (Container container : containers) {
            ResourceRequirements resources = container.getResources();
            Map<String, Quantity> requests = resources == null || resources.getRequests() == null ? Map.of()
                    : resources.getRequests();
            Map<String, Quantity> limits = resources == null || resources.getLimits() == null ? Map.of()
                    : resources.getLimits();
            for (String resource : List.of("cpu", "memory")) {
                boolean requested = requests.containsKey(resource) && !isZero(requests.get(resource));
                boolean limited = limits.containsKey(resource) && !isZero(limits.get(resource));
                anySet |= requested || limited;
                if (!limited) {
                    guaranteed = false;
                }
                else if (requested && !same(requests.get(resource), limits.get(resource))) {
                    guaranteed = false;
                }
            }
        }
        if (!anySet) {
            return BEST_EFFORT;
        }
        return guaranteed ? GUARANTEED : BURSTABLE;
    }

    private static boolean isZero(Quantity quantity) {
        return io.k4j.api.quantity.Quantity.parse(quantity.toString()).isZero();
    }

    private static boolean same(Quantity first, Quantity second) {
        return io.k4j.api.quantity.Quantity.parse(first.toString())
                .compareTo(io.k4j.api.quantity.Quantity.parse(second.toString())) == 0;
    }
}
