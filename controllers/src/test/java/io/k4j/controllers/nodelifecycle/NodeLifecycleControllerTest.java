package io.k4j.controllers.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.testing.FakeEventRecorder;
import io.k4j.controllerkit.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class NodeLifecycleControllerTest {
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    private final MutableClock clock = new MutableClock(START);
    private final CacheImpl<Node> nodes = new CacheImpl<>();
    private final CacheImpl<Lease> leases = new CacheImpl<>();
    private final List<String> podsMarkedNotReady = new ArrayList<>();
    private final FakeEventRecorder events = new FakeEventRecorder();
    private final Map<String, List<Pod>> podsByNode = Map.of("a", List.of(pod("web-1", "a")));
    private final NodeLifecycleController controller = new NodeLifecycleController(new Lister<>(nodes), new Lister<>(leases),
            node -> podsByNode.getOrDefault(node, List.of()), new CacheWriter(), events, clock, NodeLifecycleController.NODE_MONITOR_GRACE_PERIOD);

    @Test
    void silentNodeBecomesUnknownThenTaintedUnreachable() {
        nodes.put(readyNode("a", "zone-1"));
        nodes.put(readyNode("b", "zone-2"));
        controller.monitorNodeHealth();

        clock.advance(Duration.ofSeconds(51));
        renewLease("b");
        controller.monitorNodeHealth();

        assertThat(readyStatus("a")).isEqualTo("Unknown");
        assertThat(condition("a", "Ready").getReason()).isEqualTo("NodeStatusUnknown");
        assertThat(condition("a", "MemoryPressure").getStatus()).isEqualTo("Unknown");
        assertThat(readyStatus("b")).as("a renewed lease is a heartbeat").isEqualTo("True");
        assertThat(podsMarkedNotReady).containsExactly("default/web-1");
        assertThat(events.events()).contains("Normal NodeNotReady Node a status is now: NodeNotReady", "Warning NodeNotReady Node is not ready");

        controller.doNoExecuteTaintingPass();

        assertThat(taintKeys("a")).containsExactly("node.kubernetes.io/unreachable:NoExecute");
        assertThat(taintKeys("b")).isEmpty();
    }

    @Test
    void oneSilentNodeOfThreeInOneZoneIsTaintedAsTheZoneStaysNormal() {
        nodes.put(readyNode("a", "zone-1"));
        nodes.put(readyNode("b", "zone-1"));
        nodes.put(readyNode("c", "zone-1"));
        controller.monitorNodeHealth();

        clock.advance(Duration.ofSeconds(51));
        renewLease("b");
        renewLease("c");
        controller.monitorNodeHealth();
        controller.doNoExecuteTaintingPass();

        assertThat(ZoneState.of(List.of(false, true, true))).as("one of three is no partial disruption").isEqualTo(ZoneState.NORMAL);
        assertThat(taintKeys("a")).containsExactly("node.kubernetes.io/unreachable:NoExecute");
        assertThat(taintKeys("b")).isEmpty();
        assertThat(taintKeys("c")).isEmpty();
    }

    @Test
    void nodeThatNeverPostedStatusIsMarkedAfterTheStartupGracePeriod() {
        nodes.put(new NodeBuilder().withNewMetadata().withName("new").withCreationTimestamp("2026-01-01T00:00:00Z").endMetadata().build());
        nodes.put(readyNode("b", "zone-2"));
        controller.monitorNodeHealth();

        clock.advance(NodeLifecycleController.NODE_STARTUP_GRACE_PERIOD.plusSeconds(1));
        renewLease("b");
        controller.monitorNodeHealth();
        controller.doNoExecuteTaintingPass();

        assertThat(condition("new", "Ready").getReason()).isEqualTo("NodeStatusNeverUpdated");
        assertThat(condition("new", "Ready").getMessage()).isEqualTo("Kubelet never posted node status.");
        assertThat(taintKeys("new")).containsExactly("node.kubernetes.io/unreachable:NoExecute");
    }

    @Test
    void recoveredNodeLosesItsNoExecuteTaint() {
        Node node = readyNode("a", "zone-1");
        node.getSpec().setTaints(new ArrayList<>(List.of(NodeTaints.taint(NodeTaints.UNREACHABLE, "NoExecute", "2026-01-01T00:00:00Z"))));
        nodes.put(node);

        controller.monitorNodeHealth();

        assertThat(taintKeys("a")).isEmpty();
    }

    @Test
    void whenEveryZoneIsDownNothingIsTainted() {
        nodes.put(readyNode("a", "zone-1"));
        nodes.put(readyNode("b", "zone-2"));
        controller.monitorNodeHealth();

        clock.advance(Duration.ofSeconds(51));
        controller.monitorNodeHealth();
        clock.advance(Duration.ofSeconds(30));
        controller.doNoExecuteTaintingPass();

        assertThat(readyStatus("a")).isEqualTo("Unknown");
        assertThat(taintKeys("a")).isEmpty();
        assertThat(taintKeys("b")).isEmpty();

        Node recovered = nodes.getByKey("b");
        recovered.getStatus().getConditions().get(0).setStatus("True");
        recovered.getStatus().getConditions().get(0).setLastHeartbeatTime("2026-01-01T00:01:30Z");
        controller.monitorNodeHealth();
        for (int second = 0; second < 11; second++) {
            clock.advance(Duration.ofSeconds(1));
            controller.doNoExecuteTaintingPass();
        }

        assertThat(taintKeys("a")).as("tainting resumes at the normal rate").containsExactly("node.kubernetes.io/unreachable:NoExecute");
    }

    @Test
    void noScheduleTaintsFollowConditionsAndUnschedulable() {
        Node node = readyNode("a", "zone-1");
        node.getStatus().getConditions().get(0).setStatus("False");
        node.getSpec().setUnschedulable(true);
        node.getSpec().setTaints(new ArrayList<>(List.of(new Taint("NoSchedule", "user-taint", null, "x"))));
        nodes.put(node);

        controller.syncNoScheduleTaints("a");

        assertThat(taintKeys("a")).containsExactly("user-taint:NoSchedule", "node.kubernetes.io/not-ready:NoSchedule",
                "node.kubernetes.io/unschedulable:NoSchedule");

        nodes.get(node).getStatus().getConditions().get(0).setStatus("True");
        nodes.get(node).getSpec().setUnschedulable(false);
        controller.syncNoScheduleTaints("a");

        assertThat(taintKeys("a")).containsExactly("user-taint:NoSchedule");
    }

    @Test
    void partiallyDisruptedSmallZonesAreNotTaintedAtAll() {
        assertThat(NodeLifecycleController.rateFor(ZoneState.PARTIAL_DISRUPTION, 10)).isZero();
        assertThat(NodeLifecycleController.rateFor(ZoneState.PARTIAL_DISRUPTION, 100)).isEqualTo(0.01);
        assertThat(ZoneState.of(List.of(false, false, false, true))).isEqualTo(ZoneState.PARTIAL_DISRUPTION);
        assertThat(ZoneState.of(List.of(false, false, true, true))).isEqualTo(ZoneState.NORMAL);
        assertThat(ZoneState.of(List.of(false))).isEqualTo(ZoneState.FULL_DISRUPTION);
    }

    private void renewLease(String node) {
        leases.put(new LeaseBuilder().withNewMetadata().withName(node).withNamespace("kube-node-lease").endMetadata()
                .withNewSpec().withHolderIdentity(node).withRenewTime(clock.instant().atZone(ZoneOffset.UTC)).endSpec().build());
    }

    private String readyStatus(String node) {
        return condition(node, "Ready").getStatus();
    }

    private NodeCondition condition(String node, String type) {
        return NodeTaints.condition(nodes.getByKey(node), type).orElseThrow();
    }

    private List<String> taintKeys(String node) {
        return NodeTaints.taints(nodes.getByKey(node)).stream().map(taint -> taint.getKey() + ":" + taint.getEffect()).toList();
    }

    private static Node readyNode(String name, String zone) {
        return new NodeBuilder()
                .withNewMetadata().withName(name).withLabels(Map.of("topology.kubernetes.io/zone", zone)).endMetadata()
                .withNewSpec().endSpec()
                .withNewStatus()
                .addNewCondition().withType("Ready").withStatus("True").withLastHeartbeatTime("2026-01-01T00:00:00Z").endCondition()
                .addNewCondition().withType("MemoryPressure").withStatus("False").withLastHeartbeatTime("2026-01-01T00:00:00Z").endCondition()
                .endStatus()
                .build();
    }

    private static Pod pod(String name, String node) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace("default").endMetadata()
                .withNewSpec().withNodeName(node).endSpec()
                .withNewStatus().addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus()
                .build();
    }

    /** Writes straight into the informer caches, as the watch would deliver them. */
    private final class CacheWriter implements NodeWriter {
        @Override
        public void updateConditions(Node node, List<NodeCondition> conditions) {
            nodes.put(new NodeBuilder(node).editOrNewStatus().withConditions(new ArrayList<>(conditions)).endStatus().build());
        }

        @Override
        public void updateTaints(String nodeName, UnaryOperator<List<Taint>> change) {
            Node changed = new NodeBuilder(nodes.getByKey(nodeName)).editOrNewSpec().endSpec().build();
            changed.getSpec().setTaints(new ArrayList<>(change.apply(new ArrayList<>(NodeTaints.taints(changed)))));
            nodes.put(changed);
        }

        @Override
        public void markPodNotReady(Pod pod, String now) {
            podsMarkedNotReady.add(pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName());
        }
    }
}
