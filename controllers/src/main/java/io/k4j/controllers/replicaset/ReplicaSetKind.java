package io.k4j.controllers.replicaset;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Optional;

/**
 * What the replica engine needs to know about the kind it manages: ReplicaSets, or ReplicationControllers seen as
 * ReplicaSets (upstream runs the replication manager as the ReplicaSet controller over converted objects the same
 * way). Implementations are stateless and thread-safe.
 *
 * @param <T> the stored kind
 */
public interface ReplicaSetKind<T extends HasMetadata> {
    Class<T> type();

    /** The controller reference's apiVersion, e.g. {@code apps/v1}. */
    String apiVersion();

    /** The controller reference's kind, e.g. {@code ReplicaSet}. */
    String kind();

    /** The controller's name in logs and its work queue, as upstream's ({@code replicaset}, {@code replicationmanager}). */
    String controllerName();

    /** The service account the controller writes as, e.g. {@code replicaset-controller}. */
    String serviceAccount();

    /**
     * The object in ReplicaSet shape. The result may share nested objects with {@code object} (which may be an
     * informer cache's): treat it as read-only.
     */
    ReplicaSet view(T object);

    /** The writes the engine makes to objects of this kind, through {@code client}. */
    ReplicaSetClient<T> client(KubernetesClient client);

    /** The engine's writes to the objects it manages; a fake in unit tests. Implementations are thread-safe. */
    interface ReplicaSetClient<T extends HasMetadata> {
        /** A fresh read from the apiserver (not the cache); empty when the object is gone. */
        Optional<T> get(String namespace, String name);

        /**
         * Replaces the status of {@code object} (at its resourceVersion) through the status subresource.
         *
         * @return the object as stored
         * @throws io.fabric8.kubernetes.client.KubernetesClientException on a conflict or other API error
         */
        T updateStatus(T object, ReplicaSetStatus status);
    }
}
