package io.k4j.controllers.replicaset;

import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.util.Optional;

/** The {@link ReplicaSetKind} of {@code apps/v1} ReplicaSets. Stateless and thread-safe. */
public final class ReplicaSets implements ReplicaSetKind<ReplicaSet> {
    public static final ReplicaSets INSTANCE = new ReplicaSets();

    private ReplicaSets() {}

    @Override
    public Class<ReplicaSet> type() {
        return ReplicaSet.class;
    }

    @Override
    public String apiVersion() {
        return "apps/v1";
    }

    @Override
    public String kind() {
        return "ReplicaSet";
    }

    @Override
    public String controllerName() {
        return "replicaset";
    }

    @Override
    public String serviceAccount() {
        return "replicaset-controller";
    }

    @Override
    public ReplicaSet view(ReplicaSet object) {
        return object;
    }

    @Override
    public ReplicaSetClient<ReplicaSet> client(KubernetesClient client) {
        return new ReplicaSetClient<>() {
            @Override
            public Optional<ReplicaSet> get(String namespace, String name) {
                try {
                    return Optional.ofNullable(client.apps().replicaSets().inNamespace(namespace).withName(name).get());
                } catch (KubernetesClientException e) {
                    if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
                        return Optional.empty();
                    }
                    throw e;
                }
            }

            @Override
            public ReplicaSet updateStatus(ReplicaSet object, ReplicaSetStatus status) {
                ReplicaSet copy = new ReplicaSetBuilder(object).withStatus(status).build();
                return client.apps().replicaSets().inNamespace(object.getMetadata().getNamespace()).resource(copy).updateStatus();
            }
        };
    }
}
