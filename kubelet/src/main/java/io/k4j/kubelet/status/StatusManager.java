package io.k4j.kubelet.status;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Writes pod statuses through {@code pods/status}, only when they changed: a status equal to the pod's current one,
 * or to what this manager last wrote for the same resourceVersion, is not written again. A write applies only to the
 * pod with the same UID (a new pod of the same name is left alone). Thread-safe.
 */
public final class StatusManager {
    private static final PatchContext MERGE_PATCH = PatchContext.of(PatchType.JSON_MERGE);

    private record Written(String resourceVersion, PodStatus status) {}

    private final KubernetesClient client;
    private final Map<String, Written> written = new ConcurrentHashMap<>();

    public StatusManager(KubernetesClient client) {
        this.client = requireNonNull(client, "client is null");
    }

    /**
     * Writes {@code status} for {@code pod} unless nothing changed.
     *
     * @return whether a write happened
     */
    public boolean setPodStatus(Pod pod, PodStatus status) {
        String uid = pod.getMetadata().getUid();
        if (status.equals(pod.getStatus())) {
            return false;
        }
        Written last = written.get(uid);
        if (last != null && last.status().equals(status)
                && last.resourceVersion().equals(pod.getMetadata().getResourceVersion())) {
            return false;
        }
        String json = client.getKubernetesSerialization().asJson(
                Map.of("metadata", Map.of("uid", uid), "status", status));
        try {
            Pod updated = client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod)
                    .subresource("status").patch(MERGE_PATCH, json);
            written.put(uid, new Written(updated.getMetadata().getResourceVersion(), status));
            return true;
        }
        catch (KubernetesClientException e) {
            if (e.getCode() == 404 || e.getCode() == 409) {
                // Gone, or another pod of the same name: the informer brings what happened.
                return false;
            }
            throw e;
        }
    }

    /** Forgets a pod that is gone. */
    public void forget(String podUid) {
        written.remove(podUid);
    }
}
