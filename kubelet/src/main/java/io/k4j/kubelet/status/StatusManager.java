package io.k4j.kubelet.status;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.k4j.controllerkit.requests.RawApi;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Writes pod statuses through {@code pods/status}, only when they changed: a status equal to the pod's current one,
 * or to what this manager last wrote for the same resourceVersion, is not written again. A write applies only to the
 * pod with the same UID (a new pod of the same name is left alone). Thread-safe.
 */
public final class StatusManager {
    private record Written(String resourceVersion, PodStatus status) {}

    private final KubernetesClient client;
    private final RawApi api;
    private final Map<String, Written> written = new ConcurrentHashMap<>();

    public StatusManager(KubernetesClient client) {
        this.client = requireNonNull(client, "client is null");
        this.api = new RawApi(client);
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
        // Names and namespaces are DNS labels and subdomains: nothing in them needs escaping in a path.
        String path = "/api/v1/namespaces/" + pod.getMetadata().getNamespace() + "/pods/" + pod.getMetadata().getName() + "/status";
        try {
            // Only the answer's resourceVersion is read: the typed client's copy of the pod before the request and its
            // decoding of the answer cost more than the write itself on a node starting many pods.
            String resourceVersion = api.writeForResourceVersion("PATCH", path, RawApi.MERGE_PATCH, json);
            written.put(uid, new Written(resourceVersion, status));
            return true;
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
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
