package io.k4j.controllers.replicaset;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetCondition;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatus;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatusBuilder;
import io.k4j.controllerkit.pods.Pods;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** A replica set's status from its pods, as upstream's {@code calculateStatus}. Stateless and thread-safe. */
public final class ReplicaSetStatuses {
    public static final String REPLICA_FAILURE = "ReplicaFailure";

    private ReplicaSetStatuses() {}

    /**
     * The status {@code replicaSet} should have given the active pods it owns and the error (or null) of the last
     * attempt to create or delete pods: a failure adds a ReplicaFailure condition (FailedCreate or FailedDelete), a
     * success removes it.
     */
    public static ReplicaSetStatus calculate(ReplicaSet replicaSet, List<Pod> pods, String manageReplicasError, Instant now) {
        ReplicaSetStatus current = replicaSet.getStatus() == null ? new ReplicaSetStatus() : replicaSet.getStatus();
        Map<String, String> templateLabels = replicaSet.getSpec().getTemplate() == null || replicaSet.getSpec().getTemplate().getMetadata() == null
                ? null
                : replicaSet.getSpec().getTemplate().getMetadata().getLabels();
        int minReadySeconds = replicaSet.getSpec().getMinReadySeconds() == null ? 0 : replicaSet.getSpec().getMinReadySeconds();
        int fullyLabeled = 0;
        int ready = 0;
        int available = 0;
        for (Pod pod : pods) {
            if (hasAll(pod.getMetadata().getLabels(), templateLabels)) {
                fullyLabeled++;
            }
            if (Pods.isReady(pod)) {
                ready++;
                if (Pods.isAvailable(pod, minReadySeconds, now)) {
                    available++;
                }
            }
        }
        List<ReplicaSetCondition> conditions = current.getConditions() == null ? new ArrayList<>() : new ArrayList<>(current.getConditions());
        Optional<ReplicaSetCondition> failure = conditions.stream().filter(condition -> REPLICA_FAILURE.equals(condition.getType())).findFirst();
        if (manageReplicasError != null && failure.isEmpty()) {
            int desired = replicaSet.getSpec().getReplicas() == null ? 1 : replicaSet.getSpec().getReplicas();
            String reason = pods.size() - desired < 0 ? "FailedCreate" : "FailedDelete";
            conditions.add(new ReplicaSetConditionBuilder()
                    .withType(REPLICA_FAILURE)
                    .withStatus("True")
                    .withReason(reason)
                    .withMessage(manageReplicasError)
                    .withLastTransitionTime(now.truncatedTo(ChronoUnit.SECONDS).toString())
                    .build());
        } else if (manageReplicasError == null && failure.isPresent()) {
            conditions.remove(failure.get());
        }
        return new ReplicaSetStatusBuilder()
                .withReplicas(pods.size())
                .withFullyLabeledReplicas(fullyLabeled)
                .withReadyReplicas(ready)
                .withAvailableReplicas(available)
                .withObservedGeneration(current.getObservedGeneration())
                .withConditions(conditions.isEmpty() ? null : conditions)
                .build();
    }

    /** True when {@code status} differs from what is stored, counting observedGeneration against the generation. */
    public static boolean changed(ReplicaSet replicaSet, ReplicaSetStatus status) {
        ReplicaSetStatus current = replicaSet.getStatus() == null ? new ReplicaSetStatus() : replicaSet.getStatus();
        return value(current.getReplicas()) != value(status.getReplicas())
                || value(current.getFullyLabeledReplicas()) != value(status.getFullyLabeledReplicas())
                || value(current.getReadyReplicas()) != value(status.getReadyReplicas())
                || value(current.getAvailableReplicas()) != value(status.getAvailableReplicas())
                || !Objects.equals(replicaSet.getMetadata().getGeneration(), current.getObservedGeneration())
                || !Objects.equals(conditions(current), conditions(status));
    }

    private static List<ReplicaSetCondition> conditions(ReplicaSetStatus status) {
        return status.getConditions() == null ? List.of() : status.getConditions();
    }

    private static int value(Integer count) {
        return count == null ? 0 : count;
    }

    private static boolean hasAll(Map<String, String> labels, Map<String, String> required) {
        if (required == null || required.isEmpty()) {
            return true;
        }
        if (labels == null) {
            return false;
        }
        return required.entrySet().stream().allMatch(entry -> entry.getValue().equals(labels.get(entry.getKey())));
    }
}
