package io.k4j.controllers.replicaset;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PodDeletionOrderTest {
    private static final Instant NOW = Instant.parse("2026-01-01T12:00:00Z");

    @Test
    void ordersByAssignmentPhaseAndReadiness() {
        Pod ready = pod("ready", "node-a", "Running", true, NOW.minusSeconds(3600));
        Pod notReady = pod("not-ready", "node-a", "Running", false, NOW.minusSeconds(3600));
        Pod unknown = pod("unknown", "node-a", "Unknown", false, NOW.minusSeconds(3600));
        Pod pending = pod("pending", "node-a", "Pending", false, NOW.minusSeconds(3600));
        Pod unassigned = pod("unassigned", null, "Pending", false, NOW.minusSeconds(3600));

        List<Pod> order = PodDeletionOrder.podsToDelete(List.of(ready, notReady, unknown, pending, unassigned), List.of(), 4, NOW);

        assertThat(order).extracting(pod -> pod.getMetadata().getName()).containsExactly("unassigned", "pending", "unknown", "not-ready");
    }

    @Test
    void prefersLowerDeletionCostThenDoubledUpNodes() {
        Pod cheap = withCost(pod("cheap", "node-b", "Running", true, NOW.minusSeconds(3600)), "-5");
        Pod alone = pod("alone", "node-b", "Running", true, NOW.minusSeconds(3600));
        Pod crowded = pod("crowded", "node-a", "Running", true, NOW.minusSeconds(3600));
        Pod neighbour = pod("neighbour", "node-a", "Running", true, NOW.minusSeconds(3600));
        List<Pod> related = List.of(crowded, neighbour, pod("sibling", "node-a", "Running", true, NOW), alone);

        List<Pod> order = PodDeletionOrder.podsToDelete(List.of(alone, crowded, cheap), related, 2, NOW);

        assertThat(order).extracting(pod -> pod.getMetadata().getName()).containsExactly("cheap", "crowded");
    }

    @Test
    void prefersShorterReadyTimeThenMoreRestartsThenNewer() {
        Pod longReady = pod("long-ready", "node-a", "Running", true, NOW.minusSeconds(100_000));
        Pod justReady = pod("just-ready", "node-a", "Running", true, NOW.minusSeconds(10));
        assertThat(PodDeletionOrder.podsToDelete(List.of(longReady, justReady), List.of(), 1, NOW))
                .extracting(pod -> pod.getMetadata().getName()).containsExactly("just-ready");

        Pod restarted = new PodBuilder(pod("restarted", "node-a", "Running", false, NOW.minusSeconds(600)))
                .editStatus().addNewContainerStatus().withName("c").withRestartCount(4).endContainerStatus().endStatus().build();
        Pod steady = new PodBuilder(pod("steady", "node-a", "Running", false, NOW.minusSeconds(600)))
                .editStatus().addNewContainerStatus().withName("c").withRestartCount(0).endContainerStatus().endStatus().build();
        assertThat(PodDeletionOrder.podsToDelete(List.of(steady, restarted), List.of(), 1, NOW))
                .extracting(pod -> pod.getMetadata().getName()).containsExactly("restarted");

        Pod old = pod("old", "node-a", "Pending", false, NOW.minusSeconds(100_000));
        Pod young = pod("young", "node-a", "Pending", false, NOW.minusSeconds(5));
        assertThat(PodDeletionOrder.podsToDelete(List.of(old, young), List.of(), 1, NOW))
                .extracting(pod -> pod.getMetadata().getName()).containsExactly("young");
    }

    @Test
    void treatsAgesInTheSamePowerOfTwoBucketAlike() {
        // 1000 s and 1001 s are in the same log2 bucket: the tie is broken by UID, not by the second of difference.
        Pod first = pod("a", "node-a", "Pending", false, NOW.minusSeconds(1001));
        Pod second = pod("b", "node-a", "Pending", false, NOW.minusSeconds(1000));
        assertThat(PodDeletionOrder.logarithmicRank(NOW.minusSeconds(1001), NOW)).isEqualTo(PodDeletionOrder.logarithmicRank(NOW.minusSeconds(1000), NOW));
        assertThat(PodDeletionOrder.podsToDelete(List.of(second, first), List.of(), 1, NOW))
                .extracting(pod -> pod.getMetadata().getName()).containsExactly("a");
    }

    @Test
    void ordersAScaleDownOfThousandsOfPodsReadyInTheSameSeconds() {
        // A batch of pods that became ready within a few seconds of each other, some exactly together, with a few
        // restarts: the mix that made the order intransitive and the sort throw.
        Random random = new Random(42);
        List<Pod> pods = new ArrayList<>();
        for (int index = 0; index < 5_000; index++) {
            Instant readySince = NOW.minusSeconds(1_000 + random.nextInt(4));
            Pod pod = pod(String.format("pod-%04d-%s", random.nextInt(10_000), index), "node-a", "Running", true, readySince);
            pods.add(new PodBuilder(pod).editMetadata().withCreationTimestamp(NOW.minusSeconds(1_010 + random.nextInt(3)).toString()).endMetadata()
                    .editStatus().addNewContainerStatus().withName("c").withRestartCount(random.nextInt(3)).endContainerStatus().endStatus()
                    .build());
        }

        List<Pod> toDelete = PodDeletionOrder.podsToDelete(pods, List.of(), 4_000, NOW);

        assertThat(toDelete).hasSize(4_000).doesNotHaveDuplicates();
        Comparator<PodDeletionOrder.Ranked> order = PodDeletionOrder.comparator(NOW);
        List<PodDeletionOrder.Ranked> sample = pods.subList(0, 60).stream().map(pod -> new PodDeletionOrder.Ranked(pod, 0)).toList();
        for (PodDeletionOrder.Ranked a : sample) {
            for (PodDeletionOrder.Ranked b : sample) {
                assertThat(Integer.signum(order.compare(a, b))).isEqualTo(-Integer.signum(order.compare(b, a)));
                for (PodDeletionOrder.Ranked c : sample) {
                    if (order.compare(a, b) <= 0 && order.compare(b, c) <= 0) {
                        assertThat(order.compare(a, c)).as("transitive").isLessThanOrEqualTo(0);
                    }
                }
            }
        }
    }

    @Test
    void deletesEverythingWhenAskedForAll() {
        Pod pod = pod("only", "node-a", "Running", true, NOW);
        assertThat(PodDeletionOrder.podsToDelete(List.of(pod), List.of(), 5, NOW)).containsExactly(pod);
    }

    private static Pod withCost(Pod pod, String cost) {
        return new PodBuilder(pod).editMetadata().withAnnotations(Map.of(PodDeletionOrder.POD_DELETION_COST, cost)).endMetadata().build();
    }

    private static Pod pod(String name, String node, String phase, boolean ready, Instant since) {
        return new PodBuilder()
                .withNewMetadata().withName(name).withNamespace("default").withUid(name).withCreationTimestamp(since.toString()).endMetadata()
                .withNewSpec().withNodeName(node).endSpec()
                .withNewStatus().withPhase(phase)
                .addNewCondition().withType("Ready").withStatus(ready ? "True" : "False").withLastTransitionTime(since.toString()).endCondition()
                .endStatus()
                .build();
    }
}
