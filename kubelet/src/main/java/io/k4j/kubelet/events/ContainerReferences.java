package io.k4j.kubelet.events;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EphemeralContainer;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/**
 * Where a container sits in its pod, as upstream's {@code GenerateContainerRef}: the {@code fieldPath} of the
 * kubelet's per-container Events ({@code spec.containers{name}}, {@code spec.initContainers{name}},
 * {@code spec.ephemeralContainers{name}}), which {@code kubectl describe} and event aggregation tell containers apart
 * by. Stateless and thread-safe.
 */
public final class ContainerReferences {
    /** Upstream's field path prefix for a container the spec does not list. */
    public static final String IMPLICIT_CONTAINER_PREFIX = "implicitly required container ";

    private ContainerReferences() {}

    /**
     * The field path of the container named {@code containerName}; a name the spec does not list (a container the
     * runtime has that the spec lost) gets upstream's fallback, {@code implicitly required container <name>}.
     */
    public static String fieldPath(Pod pod, String containerName) {
        if (pod.getSpec() != null) {
            if (contains(pod.getSpec().getContainers(), containerName)) {
                return "spec.containers{" + containerName + "}";
            }
            if (contains(pod.getSpec().getInitContainers(), containerName)) {
                return "spec.initContainers{" + containerName + "}";
            }
            List<EphemeralContainer> ephemeral = pod.getSpec().getEphemeralContainers();
            if (ephemeral != null && ephemeral.stream().anyMatch(container -> containerName.equals(container.getName()))) {
                return "spec.ephemeralContainers{" + containerName + "}";
            }
        }
        return IMPLICIT_CONTAINER_PREFIX + containerName;
    }

    private static boolean contains(List<Container> containers, String name) {
        return containers != null && containers.stream().anyMatch(container -> name.equals(container.getName()));
    }
}
