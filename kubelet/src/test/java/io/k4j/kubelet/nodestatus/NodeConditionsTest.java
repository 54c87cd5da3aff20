package io.k4j.kubelet.nodestatus;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeConditionsTest {
    private static final Instant T0 = Instant.parse("2026-01-02T03:04:05Z");

    @Test
    void buildsTheHealthyConditionsInUpstreamsOrder() {
        List<NodeCondition> conditions = NodeConditions.build(NodeConditions.HEALTHY, List.of(), T0);

        assertThat(conditions).extracting(NodeCondition::getType).containsExactly("MemoryPressure", "DiskPressure", "PIDPressure", "Ready");
        NodeCondition ready = conditions.get(3);
        assertThat(ready.getStatus()).isEqualTo("True");
        assertThat(ready.getReason()).isEqualTo("KubeletReady");
        assertThat(ready.getMessage()).isEqualTo("kubelet is posting ready status");
        assertThat(ready.getLastHeartbeatTime()).isEqualTo("2026-01-02T03:04:05Z");
        assertThat(ready.getLastTransitionTime()).isEqualTo("2026-01-02T03:04:05Z");
    }

    @Test
    void keepsTheTransitionTimeWhileTheStatusStaysAndMovesItWhenItChanges() {
        List<NodeCondition> first = NodeConditions.build(NodeConditions.HEALTHY, List.of(), T0);
        List<NodeCondition> later = NodeConditions.build(NodeConditions.HEALTHY, first, T0.plusSeconds(300));
        assertThat(later.get(3).getLastTransitionTime()).isEqualTo("2026-01-02T03:04:05Z");
        assertThat(later.get(3).getLastHeartbeatTime()).isEqualTo("2026-01-02T03:09:05Z");

        List<NodeCondition> unknown = new ArrayList<>(first);
        unknown.set(3, new NodeConditionBuilder(first.get(3)).withStatus("Unknown").withReason("NodeStatusUnknown").build());
        List<NodeCondition> recovered = NodeConditions.build(NodeConditions.HEALTHY, unknown, T0.plusSeconds(400));
        assertThat(recovered.get(3).getLastTransitionTime()).isEqualTo("2026-01-02T03:10:45Z");
    }

    @Test
    void aReportIsDueOnChangeOrAfterFiveMinutes() {
        List<NodeCondition> written = NodeConditions.build(NodeConditions.HEALTHY, List.of(), T0);

        assertThat(NodeConditions.reportDue(NodeConditions.HEALTHY, List.of(), T0)).as("nothing written yet").isTrue();
        assertThat(NodeConditions.reportDue(NodeConditions.HEALTHY, written, T0.plusSeconds(10))).isFalse();
        assertThat(NodeConditions.reportDue(NodeConditions.HEALTHY, written, T0.plus(NodeHeartbeat.NODE_STATUS_REPORT_FREQUENCY).minusSeconds(1))).isFalse();
        assertThat(NodeConditions.reportDue(NodeConditions.HEALTHY, written, T0.plus(Duration.ofMinutes(5)))).isTrue();

        List<NodeCondition> markedUnknown = new ArrayList<>(written);
        markedUnknown.set(3, new NodeConditionBuilder(written.get(3)).withStatus("Unknown").build());
        assertThat(NodeConditions.reportDue(NodeConditions.HEALTHY, markedUnknown, T0.plusSeconds(10))).as("the lifecycle controller's Unknown").isTrue();
        assertThat(NodeConditions.reportDue(NodeConditions.HEALTHY, written.subList(0, 3), T0.plusSeconds(10))).as("Ready missing").isTrue();
    }

    @Test
    void leaseRetriesBackOffUpToSevenSeconds() {
        assertThat(NodeHeartbeat.leaseRetryDelay(1)).isEqualTo(Duration.ofMillis(200));
        assertThat(NodeHeartbeat.leaseRetryDelay(2)).isEqualTo(Duration.ofMillis(400));
        assertThat(NodeHeartbeat.leaseRetryDelay(6)).isEqualTo(Duration.ofMillis(6400));
        assertThat(NodeHeartbeat.leaseRetryDelay(7)).isEqualTo(Duration.ofSeconds(7));
        assertThat(NodeHeartbeat.leaseRetryDelay(1000)).isEqualTo(Duration.ofSeconds(7));
    }

    @Test
    void leasesAreHeldByTheNodeAndOwnedByIt() {
        Lease lease = NodeLeases.newLease("node-a", "uid-a", T0.plusNanos(1_234_567));

        assertThat(lease.getMetadata().getNamespace()).isEqualTo("kube-node-lease");
        assertThat(lease.getMetadata().getName()).isEqualTo("node-a");
        assertThat(lease.getMetadata().getOwnerReferences()).singleElement()
                .satisfies(owner -> assertThat(owner.getKind() + "/" + owner.getName() + "/" + owner.getUid()).isEqualTo("Node/node-a/uid-a"));
        assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("node-a");
        assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(40);
        assertThat(lease.getSpec().getRenewTime().toInstant()).isEqualTo(T0.plusNanos(1_234_000));

        lease.getMetadata().setResourceVersion("42");
        Lease renewed = NodeLeases.renewed(lease, "node-a", "uid-a", T0.plusSeconds(10));
        assertThat(renewed.getMetadata().getResourceVersion()).isEqualTo("42");
        assertThat(renewed.getSpec().getRenewTime().toInstant()).isEqualTo(T0.plusSeconds(10));
        assertThat(renewed.getMetadata().getOwnerReferences()).isEqualTo(lease.getMetadata().getOwnerReferences());

        Lease reRegistered = NodeLeases.renewed(lease, "node-a", "uid-b", T0.plusSeconds(20));
        assertThat(reRegistered.getMetadata().getOwnerReferences()).singleElement()
                .satisfies(owner -> assertThat(owner.getUid()).isEqualTo("uid-b"));
        assertThat(NodeLeases.newLease("node-b", "", T0).getMetadata().getOwnerReferences()).isEmpty();
    }

    @Test
    void aReadyConditionThatChangesIsANodeReadyOrNodeNotReadyEvent() {
        List<NodeConditions.Desired> notReady = new ArrayList<>(NodeConditions.HEALTHY);
        notReady.set(3, new NodeConditions.Desired("Ready", "False", "KubeletNotReady", "container runtime is down"));
        List<NodeCondition> ready = NodeConditions.build(NodeConditions.HEALTHY, List.of(), T0);

        assertThat(NodeConditions.readyTransition(NodeConditions.HEALTHY, List.of())).contains("NodeReady");
        assertThat(NodeConditions.readyTransition(NodeConditions.HEALTHY, ready)).isEmpty();
        assertThat(NodeConditions.readyTransition(notReady, ready)).contains("NodeNotReady");
        List<NodeCondition> down = NodeConditions.build(notReady, ready, T0.plusSeconds(1));
        assertThat(NodeConditions.readyTransition(notReady, down)).isEmpty();
        assertThat(NodeConditions.readyTransition(NodeConditions.HEALTHY, down)).contains("NodeReady");
    }
}
