package io.k4j.controllerkit.pods;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;

/**
 * How controllers create, delete and patch pods (upstream's {@code PodControlInterface}); the real one writes through
 * the API and records events, a fake one records calls for unit tests. Implementations are thread-safe.
 */
public interface PodControl {
    /**
     * Creates a pod from {@code template}, named {@code <controller name>-<random>} and owned by {@code controllerRef}.
     *
     * @return the created pod as the server returned it
     * @throws io.fabric8.kubernetes.client.KubernetesClientException when the API rejects it
     */
    Pod createPod(String namespace, PodTemplateSpec template, HasMetadata controller, OwnerReference controllerRef);

    /**
     * Creates {@code pod}, already built by the controller (a fixed name or a generateName of its own, as StatefulSets
     * and indexed Jobs need), with the same events as {@link #createPod(String, PodTemplateSpec, HasMetadata,
     * OwnerReference)}.
     *
     * @return the created pod as the server returned it
     * @throws io.fabric8.kubernetes.client.KubernetesClientException when the API rejects it
     */
    Pod createPod(String namespace, Pod pod, HasMetadata controller);

    /**
     * Deletes a pod on behalf of {@code controller}.
     *
     * @return false when the pod was already gone
     */
    boolean deletePod(String namespace, String name, HasMetadata controller);

    /** Applies a strategic merge patch to a pod (adoption and release of controller references). */
    void patchPod(String namespace, String name, String strategicMergePatch);
}
