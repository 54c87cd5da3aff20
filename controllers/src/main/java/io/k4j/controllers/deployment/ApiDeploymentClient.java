package io.k4j.controllers.deployment;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.k4j.controllerkit.patch.NamedPatch;
import java.net.HttpURLConnection;
import java.util.Optional;

/** {@link DeploymentClient} over the fabric8 client. Thread-safe. */
public final class ApiDeploymentClient implements DeploymentClient {
    private final KubernetesClient client;

    public ApiDeploymentClient(KubernetesClient client) {
        this.client = requireNonNull(client, "client is null");
    }

    @Override
    public Optional<Deployment> getDeployment(String namespace, String name) {
        try {
            return Optional.ofNullable(client.apps().deployments().inNamespace(namespace).withName(name).get());
        } catch (KubernetesClientException e) {
            if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
                return Optional.empty();
            }
            throw e;
        }
    }

    @Override
    public Deployment updateDeploymentStatus(Deployment deployment) {
        return client.apps().deployments().inNamespace(deployment.getMetadata().getNamespace()).resource(deployment).updateStatus();
    }

    @Override
    public ReplicaSet createReplicaSet(ReplicaSet replicaSet) {
        return client.apps().replicaSets().inNamespace(replicaSet.getMetadata().getNamespace()).resource(replicaSet).create();
    }

    @Override
    public ReplicaSet updateReplicaSet(ReplicaSet replicaSet) {
        return client.apps().replicaSets().inNamespace(replicaSet.getMetadata().getNamespace()).resource(replicaSet).update();
    }

    @Override
    public boolean deleteReplicaSet(String namespace, String name) {
        try {
            return !client.apps().replicaSets().inNamespace(namespace).withName(name).delete().isEmpty();
        } catch (KubernetesClientException e) {
            if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
                return false;
            }
            throw e;
        }
    }

    @Override
    public void patchReplicaSet(String namespace, String name, String strategicMergePatch) {
        NamedPatch.strategicMerge(client.apps().replicaSets(), ReplicaSet::new, namespace, name, strategicMergePatch);
    }
}
