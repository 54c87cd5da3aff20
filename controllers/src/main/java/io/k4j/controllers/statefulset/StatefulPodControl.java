package io.k4j.controllers.statefulset;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.k4j.controllerkit.patch.NamedPatch;
import java.util.Optional;

/**
 * The pod, claim and status writes of the StatefulSet controller (upstream's {@code StatefulPodControl}), behind an
 * interface so unit tests can record them. Implementations are thread-safe and throw
 * {@code KubernetesClientException} as the apiserver answers.
 */
interface StatefulPodControl {
    Pod createPod(Pod pod);

    void deletePod(Pod pod);

    Optional<PersistentVolumeClaim> getClaim(String namespace, String name);

    PersistentVolumeClaim createClaim(PersistentVolumeClaim claim);

    void patchClaim(String namespace, String name, String strategicMergePatch);

    void patchPod(String namespace, String name, String strategicMergePatch);

    StatefulSet updateStatus(StatefulSet set);

    static StatefulPodControl api(KubernetesClient client) {
        requireNonNull(client, "client is null");
        return new StatefulPodControl() {
            @Override
            public Pod createPod(Pod pod) {
                return client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).create();
            }

            @Override
            public void deletePod(Pod pod) {
                client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName()).delete();
            }

            @Override
            public Optional<PersistentVolumeClaim> getClaim(String namespace, String name) {
                return Optional.ofNullable(client.persistentVolumeClaims().inNamespace(namespace).withName(name).get());
            }

            @Override
            public PersistentVolumeClaim createClaim(PersistentVolumeClaim claim) {
                return client.persistentVolumeClaims().inNamespace(claim.getMetadata().getNamespace()).resource(claim).create();
            }

            @Override
            public void patchClaim(String namespace, String name, String strategicMergePatch) {
                NamedPatch.strategicMerge(client.persistentVolumeClaims(), PersistentVolumeClaim::new, namespace, name, strategicMergePatch);
            }

            @Override
            public void patchPod(String namespace, String name, String strategicMergePatch) {
                NamedPatch.strategicMerge(client.pods(), Pod::new, namespace, name, strategicMergePatch);
            }

            @Override
            public StatefulSet updateStatus(StatefulSet set) {
                return client.apps().statefulSets().inNamespace(set.getMetadata().getNamespace()).resource(set).updateStatus();
            }
        };
    }
}
