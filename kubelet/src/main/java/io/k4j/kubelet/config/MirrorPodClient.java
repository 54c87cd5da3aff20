package io.k4j.kubelet.config;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.net.HttpURLConnection;
import java.util.Map;

/**
 * Creates and deletes mirror pods in the API as the node, as upstream's mirror client. Thread-safe.
 */
public final class MirrorPodClient {
    private final KubernetesClient client;
    private final String nodeName;

    public MirrorPodClient(KubernetesClient client, String nodeName) {
        this.client = requireNonNull(client, "client is null");
        this.nodeName = requireNonNull(nodeName, "nodeName is null");
    }

    /**
     * Creates the mirror pod of a static pod. A mirror pod of the same hash that already exists is fine; any other
     * pod of the name is an error (the kubelet deletes a stale mirror pod first).
     *
     * @throws KubernetesClientException when the API refuses
     */
    public void create(Pod staticPod) {
        Node node = client.nodes().withName(nodeName).get();
        if (node == null) {
            throw new IllegalStateException("node \"" + nodeName + "\" is not registered; cannot create mirror pod "
                    + StaticPods.fullName(staticPod));
        }
        Pod mirror = StaticPods.mirrorPodOf(staticPod, nodeName, node.getMetadata().getUid());
        try {
            client.pods().inNamespace(mirror.getMetadata().getNamespace()).resource(mirror).create();
        }
        catch (KubernetesClientException e) {
            if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                throw e;
            }
            Pod existing = client.pods().inNamespace(mirror.getMetadata().getNamespace())
                    .withName(mirror.getMetadata().getName()).get();
            if (existing == null || !StaticPods.isMirrorOf(existing, staticPod)) {
                throw e;
            }
        }
    }

    /**
     * Deletes a mirror pod at once (grace period 0), only the one with this UID, as upstream; a mirror pod already
     * gone is fine.
     */
    public void delete(Pod mirror) {
        String url = client.getMasterUrl().toString().replaceAll("/+$", "") + "/api/v1/namespaces/"
                + mirror.getMetadata().getNamespace() + "/pods/" + mirror.getMetadata().getName();
        Map<String, Object> options = Map.of("kind", "DeleteOptions", "apiVersion", "v1", "gracePeriodSeconds", 0,
                "preconditions", Map.of("uid", mirror.getMetadata().getUid()));
        try {
            client.raw(url, "DELETE", options);
        }
        catch (KubernetesClientException e) {
            if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND && e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                throw e;
            }
        }
    }
}
