package io.k4j.controllers.podgc;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PodGarbageCollectorTest {
    private final CacheImpl<Pod> pods = new CacheImpl<>();
    private final CacheImpl<Node> nodes = new CacheImpl<>();
    private final Set<String> nodesInApi = new HashSet<>();
    private final List<String> deleted = new ArrayList<>();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));

    private PodGarbageCollector collector(int threshold) {
        return new PodGarbageCollector(new Lister<>(pods), new Lister<>(nodes), new PodGarbageCollector.PodGcClient() {
            @Override
            public boolean nodeExists(String name) {
                return nodesInApi.contains(name);
            }

            @Override
            public void failAndDelete(Pod pod, String message) {
                deleted.add(pod.getMetadata().getName());
                pods.remove(pod);
            }
        }, clock, threshold);
    }

    @Test
    void deletesTheOldestTerminatedPodsAboveTheThreshold() {
        nodes.put(node("node-1"));
        pods.put(pod("old", "node-1", "Succeeded", "2026-01-01T00:00:01Z"));
        pods.put(pod("older", "node-1", "Failed", "2026-01-01T00:00:00Z"));
        pods.put(pod("new", "node-1", "Succeeded", "2026-01-01T00:00:02Z"));
        pods.put(pod("running", "node-1", "Running", "2025-01-01T00:00:00Z"));

        collector(1).collect();

        assertThat(deleted).containsExactly("older", "old");
    }

    @Test
    void deletesPodsOfMissingNodesOnlyAfterTheQuarantineAndAnApiCheck() {
        pods.put(pod("orphan", "gone", "Running", "2026-01-01T00:00:00Z"));
        pods.put(pod("new-node-pod", "joining", "Running", "2026-01-01T00:00:00Z"));
        nodesInApi.add("joining");
        PodGarbageCollector collector = collector(12_500);

        collector.collect();
        assertThat(deleted).isEmpty();

        clock.advance(PodGarbageCollector.QUARANTINE.plus(Duration.ofSeconds(1)));
        collector.collect();
        assertThat(deleted).containsExactly("orphan");
    }

    @Test
    void deletesUnscheduledPodsThatAreTerminating() {
        pods.put(new PodBuilder(pod("pending", null, "Pending", "2026-01-01T00:00:00Z")).editMetadata().withDeletionTimestamp("2026-01-01T00:00:00Z").endMetadata().build());
        pods.put(pod("waiting", null, "Pending", "2026-01-01T00:00:00Z"));

        collector(12_500).collect();

        assertThat(deleted).containsExactly("pending");
    }

    private static Node node(String name) {
        return new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
    }

    private static Pod pod(String name, String nodeName, String phase, String created) {
        return new PodBuilder().withNewMetadata().withNamespace("default").withName(name).withCreationTimestamp(created).endMetadata()
                .withNewSpec().withNodeName(nodeName).endSpec().withNewStatus().withPhase(phase).endStatus().build();
    }
}
