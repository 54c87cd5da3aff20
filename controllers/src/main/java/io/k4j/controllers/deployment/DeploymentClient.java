package io.k4j.controllers.deployment;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import java.util.Optional;

/**
 * The deployment controller's writes (and the fresh reads adoption needs); the real one goes through the API as
 * {@code deployment-controller}, a fake records calls in unit tests. Every method throws
 * {@link io.fabric8.kubernetes.client.KubernetesClientException} when the apiserver rejects the request.
 * Implementations are thread-safe.
 */
public interface DeploymentClient {
    /** A fresh read (not the cache); empty when gone. */
    Optional<Deployment> getDeployment(String namespace, String name);

    /** Writes the status (and, as upstream's status strategy allows, annotations) at the object's resourceVersion. */
    Deployment updateDeploymentStatus(Deployment deployment);

    ReplicaSet createReplicaSet(ReplicaSet replicaSet);

    /** Replaces a replica set at its resourceVersion. */
    ReplicaSet updateReplicaSet(ReplicaSet replicaSet);

    /** Deletes a replica set; false when it was already gone. */
    boolean deleteReplicaSet(String namespace, String name);

    /** Applies a strategic merge patch to a replica set (adoption and release). */
    void patchReplicaSet(String namespace, String name, String strategicMergePatch);
}
