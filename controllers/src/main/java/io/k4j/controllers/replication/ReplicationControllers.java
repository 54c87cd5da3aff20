package io.k4j.controllers.replication;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.ReplicationControllerBuilder;
import io.fabric8.kubernetes.api.model.ReplicationControllerCondition;
import io.fabric8.kubernetes.api.model.ReplicationControllerConditionBuilder;
import io.fabric8.kubernetes.api.model.ReplicationControllerStatus;
import io.fabric8.kubernetes.api.model.ReplicationControllerStatusBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetCondition;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatus;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.k4j.controllers.replicaset.ReplicaSetKind;
import java.net.HttpURLConnection;
import java.util.List;
import java.util.Optional;

/**
 * The {@link ReplicaSetKind} of core/v1 ReplicationControllers: the replication manager is the ReplicaSet engine over
 * RCs converted to ReplicaSet shape (the map selector becomes {@code matchLabels}), as upstream's conversion
 * adapters. Stateless and thread-safe.
 */
public final class ReplicationControllers implements ReplicaSetKind<ReplicationController> {
    public static final ReplicationControllers INSTANCE = new ReplicationControllers();

    private ReplicationControllers() {}

    @Override
    public Class<ReplicationController> type() {
        return ReplicationController.class;
    }

    @Override
    public String apiVersion() {
        return "v1";
    }

    @Override
    public String kind() {
        return "ReplicationController";
    }

    @Override
    public String controllerName() {
        return "replicationmanager";
    }

    @Override
    public String serviceAccount() {
        return "replication-controller";
    }

    @Override
    public ReplicaSet view(ReplicationController object) {
        ReplicaSetBuilder builder = new ReplicaSetBuilder()
                .withApiVersion("apps/v1")
                .withKind("ReplicaSet")
                .withMetadata(object.getMetadata());
        if (object.getSpec() != null) {
            builder.withNewSpec()
                    .withReplicas(object.getSpec().getReplicas())
                    .withMinReadySeconds(object.getSpec().getMinReadySeconds())
                    .withSelector(object.getSpec().getSelector() == null
                            ? null
                            : new LabelSelectorBuilder().withMatchLabels(object.getSpec().getSelector()).build())
                    .withTemplate(object.getSpec().getTemplate())
                    .endSpec();
        }
        if (object.getStatus() != null) {
            ReplicationControllerStatus status = object.getStatus();
            builder.withStatus(new ReplicaSetStatusBuilder()
                    .withReplicas(status.getReplicas())
                    .withFullyLabeledReplicas(status.getFullyLabeledReplicas())
                    .withReadyReplicas(status.getReadyReplicas())
                    .withAvailableReplicas(status.getAvailableReplicas())
                    .withObservedGeneration(status.getObservedGeneration())
                    .withConditions(status.getConditions() == null ? null : status.getConditions().stream().map(ReplicationControllers::toReplicaSet).toList())
                    .build());
        }
        return builder.build();
    }

    @Override
    public ReplicaSetClient<ReplicationController> client(KubernetesClient client) {
        return new ReplicaSetClient<>() {
            @Override
            public Optional<ReplicationController> get(String namespace, String name) {
                try {
                    return Optional.ofNullable(client.replicationControllers().inNamespace(namespace).withName(name).get());
                } catch (KubernetesClientException e) {
                    if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
                        return Optional.empty();
                    }
                    throw e;
                }
            }

            @Override
            public ReplicationController updateStatus(ReplicationController object, ReplicaSetStatus status) {
                ReplicationController copy = new ReplicationControllerBuilder(object).withStatus(toReplicationController(status)).build();
                return client.replicationControllers().inNamespace(object.getMetadata().getNamespace()).resource(copy).updateStatus();
            }
        };
    }

    static ReplicationControllerStatus toReplicationController(ReplicaSetStatus status) {
        List<ReplicationControllerCondition> conditions = status.getConditions() == null
                ? null
                : status.getConditions().stream().map(ReplicationControllers::toReplicationController).toList();
        return new ReplicationControllerStatusBuilder()
                .withReplicas(status.getReplicas())
                .withFullyLabeledReplicas(status.getFullyLabeledReplicas())
                .withReadyReplicas(status.getReadyReplicas())
                .withAvailableReplicas(status.getAvailableReplicas())
                .withObservedGeneration(status.getObservedGeneration())
                .withConditions(conditions)
                .build();
    }

    private static ReplicaSetCondition toReplicaSet(ReplicationControllerCondition condition) {
        return new ReplicaSetConditionBuilder()
                .withType(condition.getType())
                .withStatus(condition.getStatus())
                .withReason(condition.getReason())
                .withMessage(condition.getMessage())
                .withLastTransitionTime(condition.getLastTransitionTime())
                .build();
    }

    private static ReplicationControllerCondition toReplicationController(ReplicaSetCondition condition) {
        return new ReplicationControllerConditionBuilder()
                .withType(condition.getType())
                .withStatus(condition.getStatus())
                .withReason(condition.getReason())
                .withMessage(condition.getMessage())
                .withLastTransitionTime(condition.getLastTransitionTime())
                .build();
    }
}
