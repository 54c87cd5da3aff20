package io.k4j.scheduler;

import static io.k4j.scheduler.testing.TestObjects.node;
import static io.k4j.scheduler.testing.TestObjects.onNode;
import static io.k4j.scheduler.testing.TestObjects.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.k4j.scheduler.cache.SchedulerCache;
import io.k4j.scheduler.config.SchedulerConfigLoader;
import io.k4j.scheduler.framework.ActionType;
import io.k4j.scheduler.framework.Snapshot;
import io.k4j.scheduler.queue.SchedulingQueue;
import io.k4j.scheduler.testing.FakeSchedulerClient;
import io.k4j.scheduler.testing.MutableClock;
import io.k4j.scheduler.testing.SimpleNominator;
import io.k4j.scheduler.testing.TestFrameworks;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

class EventHandlersTest {
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final SchedulerCache cache = new SchedulerCache(clock, Duration.ofSeconds(30));
    private final SchedulingQueue queue = new SchedulingQueue(clock,
            TestFrameworks.build(SchedulerConfigLoader.defaults(), new FakeSchedulerClient(), new SimpleNominator()));
    private final EventHandlers handlers = new EventHandlers(cache, queue, Set.of("default-scheduler"));

    @Test
    void classifiesNodeChangesAsUpstreamDoes() {
        Node node = node("a", "1", "1Gi");
        Node relabeled = new NodeBuilder(node).editMetadata().addToLabels("zone", "b").endMetadata().build();
        Node cordoned = new NodeBuilder(node).editSpec().withUnschedulable(true).endSpec().build();
        Node resized = new NodeBuilder(node).editStatus().addToAllocatable("cpu", new Quantity("2")).endStatus().build();

        assertThat(EventHandlers.nodeUpdateActions(node, relabeled)).isEqualTo(ActionType.UPDATE_NODE_LABEL);
        assertThat(EventHandlers.nodeUpdateActions(node, cordoned)).isEqualTo(ActionType.UPDATE_NODE_TAINT);
        assertThat(EventHandlers.nodeUpdateActions(node, resized)).isEqualTo(ActionType.UPDATE_NODE_ALLOCATABLE);
        assertThat(EventHandlers.nodeUpdateActions(node, node)).isZero();
    }

    @Test
    void unboundPodsAreQueuedAndBoundOnesCached() {
        handlers.onNodeAdd(node("a", "2", "4Gi"));
        handlers.onPodAdd(pod("pending", "1", null));
        handlers.onPodAdd(onNode(pod("running", "1", null), "a"));

        assertThat(queue.isActive("uid-pending")).isTrue();
        assertThat(cache.getPod("uid-running")).isNotNull();
    }

    @Test
    void aPodThatGetsBoundLeavesTheQueueAndTerminalPodsLeaveTheCache() {
        handlers.onNodeAdd(node("a", "2", "4Gi"));
        Pod pending = pod("p", "1", null);
        handlers.onPodAdd(pending);
        Pod bound = onNode(pending, "a");
        handlers.onPodUpdate(pending, bound);
        assertThat(queue.isActive("uid-p")).isFalse();
        assertThat(cache.getPod("uid-p")).isNotNull();

        handlers.onPodUpdate(bound, new PodBuilder(bound).withNewStatus().withPhase("Succeeded").endStatus().build());

        assertThat(cache.getPod("uid-p")).isNull();
        Snapshot snapshot = new Snapshot();
        cache.updateSnapshot(snapshot);
        assertThat(snapshot.get("a").requested().milliCpu).isZero();
    }

    @Test
    void podsOfOtherSchedulersAreNotQueued() {
        handlers.onPodAdd(new PodBuilder(pod("other", null, null)).editSpec().withSchedulerName("custom").endSpec().build());

        assertThat(queue.sizes()).isEqualTo(new SchedulingQueue.Sizes(0, 0, 0));
    }
}
