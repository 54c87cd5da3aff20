package io.k4j.controllerkit.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.k4j.controllerkit.pods.ApiPodControl;
import io.k4j.controllerkit.pods.PodControl;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Records pod writes instead of making them, as upstream's {@code FakePodControl}; {@link #failNext} makes calls
 * fail like a rejecting apiserver. Thread-safe.
 */
public final class FakePodControl implements PodControl {
    private final List<Pod> created = new ArrayList<>();
    private final List<String> deleted = new ArrayList<>();
    private final List<String> patches = new ArrayList<>();
    private int failures;
    private int createLimit = Integer.MAX_VALUE;

    @Override
    public Pod createPod(String namespace, PodTemplateSpec template, HasMetadata controller, OwnerReference controllerRef) {
        return createPod(namespace, ApiPodControl.podFromTemplate(template, controller, controllerRef), controller);
    }

    @Override
    public synchronized Pod createPod(String namespace, Pod pod, HasMetadata controller) {
        if (failures > 0 || created.size() >= createLimit) {
            failures = Math.max(0, failures - 1);
            throw new KubernetesClientException("fake create failure");
        }
        pod.getMetadata().setNamespace(namespace);
        if (pod.getMetadata().getName() == null) {
            pod.getMetadata().setName(pod.getMetadata().getGenerateName() + created.size());
        }
        pod.getMetadata().setUid(UUID.randomUUID().toString());
        created.add(pod);
        return pod;
    }

    @Override
    public synchronized boolean deletePod(String namespace, String name, HasMetadata controller) {
        if (failures > 0) {
            failures--;
            throw new KubernetesClientException("fake delete failure");
        }
        deleted.add(namespace + "/" + name);
        return true;
    }

    @Override
    public synchronized void patchPod(String namespace, String name, String strategicMergePatch) {
        patches.add(namespace + "/" + name + " " + strategicMergePatch);
    }

    /** The next {@code count} creates or deletes fail. */
    public synchronized void failNext(int count) {
        failures = count;
    }

    /** Creates beyond {@code limit} in total fail (a quota, say). */
    public synchronized void limitCreates(int limit) {
        createLimit = limit;
    }

    public synchronized List<Pod> created() {
        return List.copyOf(created);
    }

    public synchronized List<String> deleted() {
        return List.copyOf(deleted);
    }

    public synchronized List<String> patches() {
        return List.copyOf(patches);
    }

    public synchronized void clear() {
        created.clear();
        deleted.clear();
        patches.clear();
    }
}
