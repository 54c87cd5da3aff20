package io.k4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scheduler inside a started k4j server, with Node objects created through the API (no node agent): pods get
 * bound, a pod too big for any node gets upstream's FailedScheduling event and PodScheduled condition, taints and
 * node affinity steer placement, and a high-priority pod preempts a low-priority one on a full cluster.
 */
class SchedulerIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    static final String NODES_WITHOUT_AGENT = "--controllers=*,-node-lifecycle,-taint-eviction-controller";

    @TempDir
    static Path temporaryDirectory;

    private static K4jServer server;
    private static KubernetesClient client;

    @BeforeAll
    static void start() throws IOException {
        // No node agent keeps these API-created nodes' leases fresh, so node lifecycle would taint them unreachable.
        server = K4jServer.start(temporaryDirectory.resolve("data"), NODES_WITHOUT_AGENT);
        client = server.client();
        client.nodes().resource(node("node-a", "a", Map.of())).create();
        client.nodes().resource(node("node-b", "b", Map.of())).create();
        Node tainted = node("node-c", "c", Map.of());
        tainted.getSpec().setTaints(List.of(new io.fabric8.kubernetes.api.model.TaintBuilder().withKey("dedicated").withValue("special").withEffect("NoSchedule").build()));
        client.nodes().resource(tainted).create();
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static Node node(String name, String zone, Map<String, String> extraLabels) {
        Node node = new NodeBuilder()
                .withNewMetadata().withName(name)
                .addToLabels("kubernetes.io/hostname", name).addToLabels("topology.kubernetes.io/zone", zone).addToLabels(extraLabels).endMetadata()
                .withNewSpec().endSpec()
                .build();
        node.setStatus(new io.fabric8.kubernetes.api.model.NodeStatusBuilder()
                .addToCapacity("cpu", new Quantity("2")).addToCapacity("memory", new Quantity("4Gi")).addToCapacity("pods", new Quantity("110"))
                .addToAllocatable("cpu", new Quantity("2")).addToAllocatable("memory", new Quantity("4Gi")).addToAllocatable("pods", new Quantity("110"))
                .build());
        return node;
    }

    private static Pod pod(String namespace, String name, String cpu) {
        return new PodBuilder()
                .withNewMetadata().withName(name).withNamespace(namespace).endMetadata()
                .withNewSpec().addNewContainer().withName("main").withImage("busybox")
                .withNewResources().addToRequests("cpu", new Quantity(cpu)).endResources().endContainer().endSpec()
                .build();
    }

    private static String boundNode(String namespace, String name) {
        await().atMost(TIMEOUT).until(() -> {
            Pod pod = client.pods().inNamespace(namespace).withName(name).get();
            return pod != null && pod.getSpec().getNodeName() != null;
        });
        return client.pods().inNamespace(namespace).withName(name).get().getSpec().getNodeName();
    }

    private static List<Event> eventsFor(String namespace, String name, String reason) {
        return client.v1().events().inNamespace(namespace).list().getItems().stream()
                .filter(event -> name.equals(event.getInvolvedObject().getName()) && reason.equals(event.getReason()))
                .toList();
    }

    @Test
    void bindsAPodAndRecordsScheduledEvent() {
        client.pods().inNamespace("default").resource(pod("default", "plain", "100m")).create();

        String nodeName = boundNode("default", "plain");

        assertThat(nodeName).isIn("node-a", "node-b");
        await().atMost(TIMEOUT).untilAsserted(() -> assertThat(eventsFor("default", "plain", "Scheduled"))
                .extracting(Event::getMessage)
                .containsExactly("Successfully assigned default/plain to " + nodeName));
    }

    @Test
    void tooBigPodStaysPendingWithUpstreamMessage() {
        client.pods().inNamespace("default").resource(pod("default", "huge", "100")).create();

        String expected = "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: special}, 2 Insufficient cpu. "
                + "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
        await().atMost(TIMEOUT).untilAsserted(() -> assertThat(eventsFor("default", "huge", "FailedScheduling"))
                .extracting(Event::getMessage)
                .contains(expected));
        await().atMost(TIMEOUT).untilAsserted(() -> {
            Pod pod = client.pods().inNamespace("default").withName("huge").get();
            Optional<PodCondition> scheduled = pod.getStatus().getConditions().stream().filter(condition -> condition.getType().equals("PodScheduled")).findFirst();
            assertThat(scheduled).hasValueSatisfying(condition -> {
                assertThat(condition.getStatus()).isEqualTo("False");
                assertThat(condition.getReason()).isEqualTo("Unschedulable");
                assertThat(condition.getMessage()).isEqualTo(expected);
            });
            assertThat(pod.getSpec().getNodeName()).isNull();
        });
    }

    @Test
    void aRepeatedFailureIsOneEventWithACount() {
        client.pods().inNamespace("default").resource(pod("default", "huge-again", "100")).create();
        await().atMost(TIMEOUT).untilAsserted(() -> assertThat(eventsFor("default", "huge-again", "FailedScheduling")).hasSize(1));

        // A changed taint sends the unschedulable pod back to the queue (TaintToleration's node event); a
        // PreferNoSchedule taint leaves every node's verdict and so the message as it was.
        io.fabric8.kubernetes.api.model.Taint preferred = new io.fabric8.kubernetes.api.model.TaintBuilder()
                .withKey("k4j.io/requeue").withValue("yes").withEffect("PreferNoSchedule").build();
        client.nodes().withName("node-b").edit(node -> {
            node.getSpec().setTaints(List.of(preferred));
            return node;
        });
        try {
            await().atMost(TIMEOUT).untilAsserted(() -> assertThat(eventsFor("default", "huge-again", "FailedScheduling"))
                    .singleElement().satisfies(event -> assertThat(event.getCount()).isGreaterThanOrEqualTo(2)));
        } finally {
            client.nodes().withName("node-b").edit(node -> {
                node.getSpec().setTaints(null);
                return node;
            });
            client.pods().inNamespace("default").withName("huge-again").delete();
        }
    }

    @Test
    void taintsAndNodeAffinitySteerPlacement() {
        Pod tolerating = pod("default", "tolerating", "100m");
        tolerating.getSpec().setTolerations(List.of(new io.fabric8.kubernetes.api.model.TolerationBuilder()
                .withKey("dedicated").withOperator("Equal").withValue("special").withEffect("NoSchedule").build()));
        tolerating.getSpec().setNodeSelector(Map.of("topology.kubernetes.io/zone", "c"));
        client.pods().inNamespace("default").resource(tolerating).create();

        Pod affine = pod("default", "affine", "100m");
        affine.getSpec().setAffinity(new io.fabric8.kubernetes.api.model.AffinityBuilder().withNewNodeAffinity()
                .withNewRequiredDuringSchedulingIgnoredDuringExecution().addNewNodeSelectorTerm().addNewMatchExpression()
                .withKey("topology.kubernetes.io/zone").withOperator("In").withValues("b").endMatchExpression().endNodeSelectorTerm()
                .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().build());
        client.pods().inNamespace("default").resource(affine).create();

        Pod notTolerating = pod("default", "not-tolerating", "100m");
        notTolerating.getSpec().setNodeSelector(Map.of("topology.kubernetes.io/zone", "c"));
        client.pods().inNamespace("default").resource(notTolerating).create();

        assertThat(boundNode("default", "tolerating")).isEqualTo("node-c");
        assertThat(boundNode("default", "affine")).isEqualTo("node-b");
        await().atMost(TIMEOUT).untilAsserted(() -> assertThat(eventsFor("default", "not-tolerating", "FailedScheduling"))
                .extracting(Event::getMessage)
                .contains("0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: special}, 2 node(s) didn't match Pod's node affinity/selector. "
                        + "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."));
    }

    @Test
    void highPriorityPodPreemptsLowPriorityPod() {
        client.resource(new PriorityClassBuilder().withNewMetadata().withName("high").endMetadata().withValue(1000).build()).create();
        // Fill zone a and b so that no 1500m pod fits anywhere without evicting something.
        Pod lowA = pod("default", "low-a", "1500m");
        lowA.getSpec().setNodeSelector(Map.of("topology.kubernetes.io/zone", "a"));
        Pod lowB = pod("default", "low-b", "1500m");
        lowB.getSpec().setNodeSelector(Map.of("topology.kubernetes.io/zone", "b"));
        client.pods().inNamespace("default").resource(lowA).create();
        client.pods().inNamespace("default").resource(lowB).create();
        boundNode("default", "low-a");
        boundNode("default", "low-b");

        Pod high = pod("default", "high", "1500m");
        high.getSpec().setPriorityClassName("high");
        high.getSpec().setNodeSelector(Map.of("topology.kubernetes.io/zone", "a"));
        client.pods().inNamespace("default").resource(high).create();

        await().atMost(TIMEOUT).until(() -> {
            Pod pod = client.pods().inNamespace("default").withName("high").get();
            return "node-a".equals(pod.getStatus().getNominatedNodeName());
        });
        await().atMost(TIMEOUT).until(() -> {
            Pod victim = client.pods().inNamespace("default").withName("low-a").get();
            return victim == null || victim.getMetadata().getDeletionTimestamp() != null;
        });
        assertThat(eventsFor("default", "low-a", "Preempted")).isNotEmpty();
        // No kubelet runs here to finish the graceful deletion; do what it would do.
        client.pods().inNamespace("default").withName("low-a").withGracePeriod(0).delete();

        assertThat(boundNode("default", "high")).isEqualTo("node-a");
        assertThat(client.pods().inNamespace("default").withName("low-b").get()).isNotNull();
    }
}
