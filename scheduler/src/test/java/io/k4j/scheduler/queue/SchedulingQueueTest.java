package io.k4j.scheduler.queue;

import static io.k4j.scheduler.testing.TestObjects.pod;
import static io.k4j.scheduler.testing.TestObjects.withPriority;
import static org.assertj.core.api.Assertions.assertThat;

import io.k4j.scheduler.framework.ActionType;
import io.k4j.scheduler.framework.ClusterEvent;
import io.k4j.scheduler.framework.EventResource;
import io.k4j.scheduler.framework.Framework;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.QueuedPodInfo;
import io.k4j.scheduler.testing.FakeSchedulerClient;
import io.k4j.scheduler.testing.MutableClock;
import io.k4j.scheduler.testing.SimpleNominator;
import io.k4j.scheduler.testing.TestFrameworks;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SchedulingQueueTest {
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final Framework framework = TestFrameworks.defaultFramework(new FakeSchedulerClient(), new SimpleNominator());
    private final SchedulingQueue queue = new SchedulingQueue(clock, Map.of("default-scheduler", framework));

    @Test
    void popsByPriorityThenByQueueTime() throws InterruptedException {
        queue.add(new PodInfo(withPriority(pod("low", null, null), 1)));
        clock.advance(Duration.ofMillis(1));
        queue.add(new PodInfo(withPriority(pod("high", null, null), 10)));
        clock.advance(Duration.ofMillis(1));
        queue.add(new PodInfo(withPriority(pod("low-later", null, null), 1)));

        assertThat(queue.pop().podInfo().name()).isEqualTo("high");
        assertThat(queue.pop().podInfo().name()).isEqualTo("low");
        assertThat(queue.pop().podInfo().name()).isEqualTo("low-later");
    }

    @Test
    void backoffDoublesFromOneSecondUpToTen() {
        assertThat(queue.backoffDuration(1)).isEqualTo(Duration.ofSeconds(1));
        assertThat(queue.backoffDuration(2)).isEqualTo(Duration.ofSeconds(2));
        assertThat(queue.backoffDuration(4)).isEqualTo(Duration.ofSeconds(8));
        assertThat(queue.backoffDuration(5)).isEqualTo(Duration.ofSeconds(10));
        assertThat(queue.backoffDuration(30)).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void unschedulablePodMovesBackOnlyOnAnEventItsRejectingPluginRegistered() throws InterruptedException {
        QueuedPodInfo queued = popAfterAdding("p");
        queued.unschedulablePlugins().add("NodeResourcesFit");
        queue.addUnschedulableIfNotPresent(queued, queue.schedulingCycle());
        assertThat(queue.isUnschedulable("uid-p")).isTrue();

        queue.moveAllToActiveOrBackoffQueue(new ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_LABEL, "NodeLabel"));
        assertThat(queue.isUnschedulable("uid-p")).isTrue();

        queue.moveAllToActiveOrBackoffQueue(ClusterEvent.ASSIGNED_POD_DELETE);
        assertThat(queue.isUnschedulable("uid-p")).isFalse();
        assertThat(queue.isInBackoff("uid-p")).isTrue();

        clock.advance(Duration.ofSeconds(2));
        queue.flushBackoffQCompleted();
        assertThat(queue.isActive("uid-p")).isTrue();
    }

    @Test
    void aMoveRequestDuringTheCycleSendsTheFailedPodToBackoff() throws InterruptedException {
        QueuedPodInfo queued = popAfterAdding("p");
        queued.unschedulablePlugins().add("TaintToleration");
        long cycle = queue.schedulingCycle();
        queue.moveAllToActiveOrBackoffQueue(ClusterEvent.NODE_ADD);

        queue.addUnschedulableIfNotPresent(queued, cycle);

        assertThat(queue.isInBackoff("uid-p")).isTrue();
    }

    @Test
    void unschedulablePodsAreFlushedAfterFiveMinutes() throws InterruptedException {
        QueuedPodInfo queued = popAfterAdding("p");
        queued.unschedulablePlugins().add("NodeAffinity");
        queue.addUnschedulableIfNotPresent(queued, queue.schedulingCycle());

        clock.advance(Duration.ofMinutes(4));
        queue.flushUnschedulablePodsLeftover();
        assertThat(queue.isUnschedulable("uid-p")).isTrue();

        clock.advance(Duration.ofMinutes(1));
        queue.flushUnschedulablePodsLeftover();
        assertThat(queue.isActive("uid-p")).isTrue();
    }

    @Test
    void gatedPodsWaitUntilTheirGatesAreRemoved() {
        PodInfo gated = new PodInfo(new io.fabric8.kubernetes.api.model.PodBuilder(pod("gated", null, null)).editSpec()
                .addNewSchedulingGate("example.com/gate").endSpec().build());
        queue.add(gated);
        assertThat(queue.isUnschedulable("uid-gated")).isTrue();

        queue.moveAllToActiveOrBackoffQueue(ClusterEvent.NODE_ADD);
        assertThat(queue.isUnschedulable("uid-gated")).isTrue();

        queue.update(gated, new PodInfo(pod("gated", null, null)));
        assertThat(queue.isActive("uid-gated")).isTrue();
    }

    @Test
    void deletedPodsLeaveEveryQueue() {
        PodInfo pod = new PodInfo(pod("p", null, null));
        queue.add(pod);

        queue.delete(pod);

        assertThat(queue.sizes()).isEqualTo(new SchedulingQueue.Sizes(0, 0, 0));
    }

    @Test
    void tracksNominatedPodsPerNode() {
        PodInfo pod = new PodInfo(pod("p", null, null));
        queue.addNominatedPod(pod, "node-a");

        assertThat(queue.nominatedPodsForNode("node-a")).extracting(PodInfo::name).containsExactly("p");
        queue.deleteNominatedPodIfExists(pod);
        assertThat(queue.nominatedPodsForNode("node-a")).isEmpty();
    }

    private QueuedPodInfo popAfterAdding(String name) throws InterruptedException {
        queue.add(new PodInfo(pod(name, null, null)));
        return queue.pop();
    }
}
