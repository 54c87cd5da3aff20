package io.k4j.kubelet.prober;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.k4j.controllerkit.testing.FakeEventRecorder;
import io.k4j.controllerkit.testing.MutableClock;
import io.k4j.kubelet.prober.FakeContainerCommandRunner.Answer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProbeWorkerTest {
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    private final MutableClock clock = new MutableClock(START);
    private final FakeContainerCommandRunner runner = new FakeContainerCommandRunner();
    private final FakeContainerStates states = new FakeContainerStates();
    private final FakeEventRecorder events = new FakeEventRecorder();
    private final RecordingResults results = new RecordingResults();
    private final Prober prober = new Prober(runner, new HttpGetter(), new GrpcHealthChecker());

    /** Records what workers set; "started" is what the test says. */
    private static final class RecordingResults implements ProbeWorker.Results {
        final List<String> sets = new ArrayList<>();
        boolean started = true;

        @Override
        public void set(ProbeWorker worker, String containerId, ProbeWorker.ProbeState state, boolean probed) {
            sets.add(containerId + " " + state + (probed ? "" : " (not probed)"));
        }

        @Override
        public void remove(ProbeWorker worker, String containerId) {
            sets.add(containerId + " removed");
        }

        @Override
        public boolean started(String podUid, String containerName, String containerId) {
            return started;
        }
    }

    private static Probe execProbe(int initialDelay, int successThreshold, int failureThreshold) {
        return new ProbeBuilder().withNewExec().withCommand("cat", "/tmp/$(FILE)").endExec().withInitialDelaySeconds(initialDelay)
                .withPeriodSeconds(10).withTimeoutSeconds(2).withSuccessThreshold(successThreshold).withFailureThreshold(failureThreshold)
                .build();
    }

    private static Pod pod(Container container) {
        return new PodBuilder().withNewMetadata().withNamespace("ns").withName("web-1").withUid("uid-1").endMetadata()
                .withNewSpec().withContainers(container).withRestartPolicy("Always").endSpec().build();
    }

    private ProbeWorker worker(ProbeType type, Probe probe) {
        ContainerBuilder builder = new ContainerBuilder().withName("c1").withImage("busybox").addNewEnv().withName("FILE").withValue("healthy")
                .endEnv();
        Container container = switch (type) {
            case LIVENESS -> builder.withLivenessProbe(probe).build();
            case READINESS -> builder.withReadinessProbe(probe).build();
            case STARTUP -> builder.withStartupProbe(probe).build();
        };
        return new ProbeWorker(pod(container), container, type, states, prober, results, events, clock);
    }

    private void running(String containerId) {
        states.put("uid-1", "c1", new RunningContainer(containerId, true, clock.instant(), List.of("10.42.0.7")));
    }

    @Test
    void waitsForTheContainerAndItsInitialDelay() throws Exception {
        ProbeWorker worker = worker(ProbeType.LIVENESS, execProbe(5, 1, 3));

        assertThat(worker.doProbe()).isTrue();
        assertThat(runner.calls()).isEmpty();

        running("c-1");
        clock.advance(Duration.ofSeconds(4));
        assertThat(worker.doProbe()).isTrue();
        assertThat(runner.calls()).isEmpty();
        assertThat(results.sets).containsExactly("c-1 SUCCESS (not probed)");

        clock.advance(Duration.ofSeconds(1));
        worker.doProbe();
        assertThat(runner.calls()).singleElement().satisfies(call -> {
            assertThat(call.containerId()).isEqualTo("c-1");
            // Only the container's static env values are expanded into exec probes.
            assertThat(call.command()).containsExactly("cat", "/tmp/healthy");
            assertThat(call.timeout()).isEqualTo(Duration.ofSeconds(2));
        });
    }

    @Test
    void livenessFailsAfterTheThresholdThenHoldsUntilANewContainer() throws Exception {
        ProbeWorker worker = worker(ProbeType.LIVENESS, execProbe(0, 1, 3));
        running("c-1");
        runner.alwaysAnswer(new Answer.Exit(1, "no such file", ""));

        worker.doProbe();
        worker.doProbe();
        assertThat(results.sets).containsExactly("c-1 SUCCESS (not probed)");

        worker.doProbe();
        assertThat(results.sets).containsExactly("c-1 SUCCESS (not probed)", "c-1 FAILURE");
        assertThat(events.events()).hasSize(3).allMatch(event -> event.equals("Warning Unhealthy Liveness probe failed: no such file"));

        worker.doProbe();
        assertThat(runner.calls()).hasSize(3);

        runner.alwaysAnswer(new Answer.Exit(0, "", ""));
        running("c-2");
        worker.doProbe();
        assertThat(runner.calls()).hasSize(4).last().satisfies(call -> assertThat(call.containerId()).isEqualTo("c-2"));
        assertThat(results.sets).containsExactly("c-1 SUCCESS (not probed)", "c-1 FAILURE", "c-1 removed", "c-2 SUCCESS (not probed)",
                "c-2 SUCCESS");
    }

    @Test
    void aSuccessInBetweenResetsTheFailureCount() throws Exception {
        ProbeWorker worker = worker(ProbeType.LIVENESS, execProbe(0, 1, 2));
        running("c-1");
        runner.thenAnswer(new Answer.Exit(1, "", "")).thenAnswer(new Answer.Exit(0, "", "")).thenAnswer(new Answer.Exit(1, "", ""));

        worker.doProbe();
        worker.doProbe();
        worker.doProbe();

        assertThat(results.sets).doesNotContain("c-1 FAILURE");
    }

    @Test
    void readinessStartsFailedAndNeedsItsSuccessThreshold() throws Exception {
        ProbeWorker worker = worker(ProbeType.READINESS, execProbe(0, 2, 3));
        running("c-1");

        worker.doProbe();
        assertThat(results.sets).containsExactly("c-1 FAILURE (not probed)");
        worker.doProbe();
        assertThat(results.sets).containsExactly("c-1 FAILURE (not probed)", "c-1 SUCCESS");
    }

    @Test
    void onlyTheStartupProbeRunsUntilTheContainerStarted() throws Exception {
        ProbeWorker liveness = worker(ProbeType.LIVENESS, execProbe(0, 1, 3));
        ProbeWorker startup = worker(ProbeType.STARTUP, execProbe(0, 1, 3));
        running("c-1");
        results.started = false;

        liveness.doProbe();
        assertThat(runner.calls()).isEmpty();
        startup.doProbe();
        assertThat(runner.calls()).hasSize(1);

        results.started = true;
        startup.doProbe();
        assertThat(runner.calls()).hasSize(1);
        liveness.doProbe();
        assertThat(runner.calls()).hasSize(2);
    }

    @Test
    void timeoutsAreFailuresAndRuntimeErrorsAreIgnored() throws Exception {
        ProbeWorker worker = worker(ProbeType.LIVENESS, execProbe(0, 1, 1));
        running("c-1");
        runner.alwaysAnswer(new Answer.Error("container not running"));

        worker.doProbe();
        assertThat(results.sets).containsExactly("c-1 SUCCESS (not probed)");
        assertThat(runner.calls()).hasSize(3);
        assertThat(events.events()).containsExactly("Warning Unhealthy Liveness probe errored: container not running");

        runner.alwaysAnswer(new Answer.Timeout());
        worker.doProbe();
        assertThat(results.sets).containsExactly("c-1 SUCCESS (not probed)", "c-1 FAILURE");
        assertThat(events.events()).last().isEqualTo("Warning Unhealthy Liveness probe failed: command \"cat /tmp/healthy\" timed out");
    }

    @Test
    void aStoppedContainerFailsWithoutBeingProbed() throws Exception {
        ProbeWorker worker = worker(ProbeType.READINESS, execProbe(0, 1, 3));
        states.put("uid-1", "c1", new RunningContainer("c-1", false, START, List.of()));

        worker.doProbe();

        assertThat(runner.calls()).isEmpty();
        assertThat(results.sets).containsExactly("c-1 FAILURE (not probed)", "c-1 FAILURE (not probed)");
    }

    @Test
    void aPodBeingDeletedStopsItsLivenessProbeWithSuccess() throws Exception {
        ProbeWorker worker = worker(ProbeType.LIVENESS, execProbe(0, 1, 1));
        running("c-1");
        Pod deleting = new PodBuilder(worker.pod()).editMetadata().withDeletionTimestamp("2026-01-01T00:00:05Z").endMetadata().build();
        worker.updatePod(deleting);

        assertThat(worker.doProbe()).isFalse();
        assertThat(runner.calls()).isEmpty();
        assertThat(results.sets).containsExactly("c-1 SUCCESS (not probed)", "c-1 SUCCESS (not probed)");
    }
}
