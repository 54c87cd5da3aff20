package io.k4j.scheduler;

import static io.k4j.scheduler.testing.TestObjects.node;
import static io.k4j.scheduler.testing.TestObjects.pod;
import static io.k4j.scheduler.testing.TestObjects.withTaints;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.k4j.scheduler.cache.SchedulerCache;
import io.k4j.scheduler.config.SchedulerConfigLoader;
import io.k4j.scheduler.framework.Framework;
import io.k4j.scheduler.queue.SchedulingQueue;
import io.k4j.scheduler.testing.FakeSchedulerClient;
import io.k4j.scheduler.testing.MutableClock;
import io.k4j.scheduler.testing.TestFrameworks;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SchedulerTest {
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final FakeSchedulerClient client = new FakeSchedulerClient();
    private final Map<String, Pod> pods = new ConcurrentHashMap<>();
    private final ExecutorService executor = Executors.newSingleThreadExecutor();
    private final SchedulerCache cache = new SchedulerCache(clock, Duration.ofSeconds(30));
    private final SchedulingQueue queue;
    private final Scheduler scheduler;
    private final EventHandlers handlers;

    SchedulerTest() {
        QueueNominator nominator = new QueueNominator();
        Map<String, Framework> frameworks = TestFrameworks.build(SchedulerConfigLoader.defaults(), client, nominator);
        queue = new SchedulingQueue(clock, frameworks);
        nominator.queue = queue;
        scheduler = new Scheduler(frameworks, queue, cache, client, (namespace, name) -> pods.get(namespace + "/" + name), 0, executor, clock);
        handlers = new EventHandlers(cache, queue, Set.of("default-scheduler"));
    }

    private static final class QueueNominator implements io.k4j.scheduler.framework.PodNominator {
        SchedulingQueue queue;

        @Override
        public void addNominatedPod(io.k4j.scheduler.framework.PodInfo pod, String nodeName) {
            queue.addNominatedPod(pod, nodeName);
        }

        @Override
        public void deleteNominatedPodIfExists(io.k4j.scheduler.framework.PodInfo pod) {
            queue.deleteNominatedPodIfExists(pod);
        }

        @Override
        public java.util.List<io.k4j.scheduler.framework.PodInfo> nominatedPodsForNode(String nodeName) {
            return queue.nominatedPodsForNode(nodeName);
        }
    }

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    private void create(Pod pod) {
        pods.put(pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName(), pod);
        handlers.onPodAdd(pod);
    }

    @Test
    void bindsToAFittingNodeAndRecordsScheduled() throws InterruptedException {
        handlers.onNodeAdd(node("small", "1", "1Gi"));
        handlers.onNodeAdd(node("big", "4", "8Gi"));
        create(pod("p", "2", null));

        assertThat(scheduler.scheduleOne(Duration.ofSeconds(1))).isTrue();

        await().atMost(Duration.ofSeconds(10)).until(() -> client.bindings.containsKey("default/p"));
        assertThat(client.bindings).containsEntry("default/p", "big");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(client.events)
                .contains(new FakeSchedulerClient.RecordedEvent("default/p", "Normal", "Scheduled", "Successfully assigned default/p to big")));
        assertThat(cache.isAssumedPod("uid-p")).isTrue();
    }

    @Test
    void unschedulablePodsGetTheAggregatedMessageAndComeBackWhenANodeArrives() throws InterruptedException {
        handlers.onNodeAdd(node("a", "1", "1Gi"));
        handlers.onNodeAdd(withTaints(node("b", "8", "8Gi"), new TaintBuilder().withKey("key").withValue("value").withEffect("NoSchedule").build()));
        create(pod("p", "2", null));

        scheduler.scheduleOne(Duration.ofSeconds(1));

        String message = "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {key: value}. "
                + "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.";
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(client.events)
                .contains(new FakeSchedulerClient.RecordedEvent("default/p", "Warning", "FailedScheduling", message)));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(client.conditions.get("default/p").getReason()).isEqualTo("Unschedulable"));
        assertThat(queue.isUnschedulable("uid-p")).isTrue();

        handlers.onNodeAdd(node("c", "4", "4Gi"));
        clock.advance(Duration.ofSeconds(2));
        queue.flushBackoffQCompleted();

        assertThat(scheduler.scheduleOne(Duration.ofSeconds(1))).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> "c".equals(client.bindings.get("default/p")));
    }

    @Test
    void assumedPodsReserveRoomForTheNextCycle() throws InterruptedException {
        handlers.onNodeAdd(node("a", "2", "4Gi"));
        handlers.onNodeAdd(node("b", "2", "4Gi"));
        create(pod("first", "2", null));
        create(pod("second", "2", null));

        scheduler.scheduleOne(Duration.ofSeconds(1));
        scheduler.scheduleOne(Duration.ofSeconds(1));

        await().atMost(Duration.ofSeconds(10)).until(() -> client.bindings.size() == 2);
        assertThat(client.bindings.values()).containsExactlyInAnyOrder("a", "b");
    }

    @Test
    void failedBindingsForgetTheAssumptionAndRequeue() throws InterruptedException {
        handlers.onNodeAdd(node("a", "2", "4Gi"));
        client.failBindings = true;
        create(pod("p", "1", null));

        scheduler.scheduleOne(Duration.ofSeconds(1));

        await().atMost(Duration.ofSeconds(10)).until(() -> queue.isInBackoff("uid-p") || queue.isActive("uid-p"));
        assertThat(cache.isAssumedPod("uid-p")).isFalse();
    }

    @Test
    void nodesAPreFilterExcludedCountAsUnresolvableInTheMessage() throws InterruptedException {
        handlers.onNodeAdd(node("a", "1", "1Gi"));
        handlers.onNodeAdd(node("b", "1", "1Gi"));
        handlers.onNodeAdd(node("c", "1", "1Gi"));
        Pod pinned = pod("pinned", "2", null);
        pinned.getSpec().setAffinity(new io.fabric8.kubernetes.api.model.AffinityBuilder().withNewNodeAffinity()
                .withNewRequiredDuringSchedulingIgnoredDuringExecution().addNewNodeSelectorTerm().addNewMatchField()
                .withKey("metadata.name").withOperator("In").withValues("a").endMatchField().endNodeSelectorTerm()
                .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().build());
        create(pinned);

        scheduler.scheduleOne(Duration.ofSeconds(1));

        String message = "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. "
                + "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(client.events)
                .contains(new FakeSchedulerClient.RecordedEvent("default/pinned", "Warning", "FailedScheduling", message)));
    }

    @Test
    void podsOfOtherSchedulersAreIgnored() throws InterruptedException {
        handlers.onNodeAdd(node("a", "2", "4Gi"));
        create(new PodBuilder(pod("other", null, null)).editSpec().withSchedulerName("someone-else").endSpec().build());

        assertThat(scheduler.scheduleOne(Duration.ofMillis(100))).isFalse();
    }

    @Test
    void feasibleNodesToFindFollowsUpstreamsAdaptivePercentage() {
        assertThat(Scheduler.numFeasibleNodesToFind(0, 50)).isEqualTo(50);
        assertThat(Scheduler.numFeasibleNodesToFind(0, 1000)).isEqualTo(420);
        assertThat(Scheduler.numFeasibleNodesToFind(0, 5000)).isEqualTo(500);
        assertThat(Scheduler.numFeasibleNodesToFind(0, 10000)).isEqualTo(500);
        assertThat(Scheduler.numFeasibleNodesToFind(10, 500)).isEqualTo(100);
        assertThat(Scheduler.numFeasibleNodesToFind(100, 5000)).isEqualTo(5000);
    }
}
