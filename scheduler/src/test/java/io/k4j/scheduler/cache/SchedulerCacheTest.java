package io.k4j.scheduler.cache;

import static io.k4j.scheduler.testing.TestObjects.node;
import static io.k4j.scheduler.testing.TestObjects.onNode;
import static io.k4j.scheduler.testing.TestObjects.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.k4j.scheduler.framework.NodeInfo;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.Snapshot;
import io.k4j.scheduler.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class SchedulerCacheTest {
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final SchedulerCache cache = new SchedulerCache(clock, Duration.ofSeconds(30));

    @Test
    void assumedPodsCountUntilConfirmed() {
        cache.addNode(node("a", "2", "4Gi"));
        PodInfo assumed = new PodInfo(onNode(pod("p", "1", null), "a"));

        cache.assumePod(assumed);
        assertThat(cache.isAssumedPod("uid-p")).isTrue();
        assertThat(requestedCpu("a")).isEqualTo(1000);

        cache.addPod(assumed);
        assertThat(cache.isAssumedPod("uid-p")).isFalse();
        assertThat(requestedCpu("a")).isEqualTo(1000);
    }

    @Test
    void forgottenPodsFreeTheirRoom() {
        cache.addNode(node("a", "2", "4Gi"));
        PodInfo assumed = new PodInfo(onNode(pod("p", "1", null), "a"));
        cache.assumePod(assumed);

        cache.forgetPod(assumed);

        assertThat(requestedCpu("a")).isZero();
        assertThat(cache.podCount()).isZero();
    }

    @Test
    void assumedPodsExpireOnlyAfterTheirBindingFinishedAndTheTtlPassed() {
        cache.addNode(node("a", "2", "4Gi"));
        PodInfo assumed = new PodInfo(onNode(pod("p", "1", null), "a"));
        cache.assumePod(assumed);

        clock.advance(Duration.ofMinutes(5));
        cache.cleanupExpiredAssumedPods();
        assertThat(cache.isAssumedPod("uid-p")).isTrue();

        cache.finishBinding(assumed);
        clock.advance(Duration.ofSeconds(31));
        cache.cleanupExpiredAssumedPods();
        assertThat(cache.isAssumedPod("uid-p")).isFalse();
        assertThat(requestedCpu("a")).isZero();
    }

    @Test
    void snapshotCopiesOnlyChangedNodes() {
        cache.addNode(node("a", "2", "4Gi"));
        cache.addNode(node("b", "2", "4Gi"));
        Snapshot snapshot = new Snapshot();
        cache.updateSnapshot(snapshot);
        NodeInfo unchangedBefore = snapshot.get("a");

        cache.addPod(new PodInfo(onNode(pod("p", "1", null), "b")));
        cache.updateSnapshot(snapshot);

        assertThat(snapshot.get("a")).isSameAs(unchangedBefore);
        assertThat(snapshot.get("b").requested().milliCpu).isEqualTo(1000);
        assertThat(snapshot.numNodes()).isEqualTo(2);
    }

    @Test
    void snapshotDropsDeletedNodesAndTracksAffinityNodes() {
        cache.addNode(node("a", "2", "4Gi"));
        cache.addNode(node("b", "2", "4Gi"));
        Snapshot snapshot = new Snapshot();
        cache.updateSnapshot(snapshot);

        cache.removeNode(node("a", "2", "4Gi"));
        io.fabric8.kubernetes.api.model.Pod withAntiAffinity = onNode(pod("anti", null, null), "b");
        withAntiAffinity.getSpec().setAffinity(new io.fabric8.kubernetes.api.model.AffinityBuilder().withNewPodAntiAffinity()
                .addNewRequiredDuringSchedulingIgnoredDuringExecution().withTopologyKey("kubernetes.io/hostname").withNewLabelSelector().endLabelSelector()
                .endRequiredDuringSchedulingIgnoredDuringExecution().endPodAntiAffinity().build());
        cache.addPod(new PodInfo(withAntiAffinity));
        cache.updateSnapshot(snapshot);

        assertThat(snapshot.list()).extracting(NodeInfo::name).containsExactly("b");
        assertThat(snapshot.havePodsWithRequiredAntiAffinity()).extracting(NodeInfo::name).containsExactly("b");
    }

    @Test
    void podsOfAnUnknownNodeAppearOnceTheNodeArrives() {
        cache.addPod(new PodInfo(onNode(pod("early", "1", null), "late")));
        Snapshot snapshot = new Snapshot();
        cache.updateSnapshot(snapshot);
        assertThat(snapshot.numNodes()).isZero();

        cache.addNode(node("late", "2", "4Gi"));
        cache.updateSnapshot(snapshot);

        assertThat(snapshot.get("late").pods()).extracting(PodInfo::name).containsExactly("early");
    }

    private long requestedCpu(String nodeName) {
        Snapshot snapshot = new Snapshot();
        cache.updateSnapshot(snapshot);
        return snapshot.get(nodeName).requested().milliCpu;
    }
}
