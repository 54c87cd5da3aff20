package io.k4j.kubelet.prober;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.k4j.controllerkit.testing.FakeEventRecorder;
import io.k4j.kubelet.prober.FakeContainerCommandRunner.Answer;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class KubeletProbeManagerTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final FakeContainerCommandRunner runner = new FakeContainerCommandRunner();
    private final FakeContainerStates states = new FakeContainerStates();
    private final RecordingProbeListener listener = new RecordingProbeListener();
    private final FakeEventRecorder events = new FakeEventRecorder();
    private final KubeletProbeManager manager = new KubeletProbeManager(runner, states, listener, events, InstantSource.system());

    @AfterEach
    void close() {
        manager.close();
    }

    private static Pod pod(String restartPolicy, Container... containers) {
        return new PodBuilder().withNewMetadata().withNamespace("ns").withName("web-1").withUid("uid-1").endMetadata()
                .withNewSpec().withRestartPolicy(restartPolicy).withContainers(containers).endSpec().build();
    }

    private static ProbeBuilder exec(String... command) {
        return new ProbeBuilder().withNewExec().withCommand(command).endExec().withPeriodSeconds(1).withTimeoutSeconds(1)
                .withSuccessThreshold(1).withFailureThreshold(1);
    }

    private void running(String containerName, String containerId) {
        states.put("uid-1", containerName, new RunningContainer(containerId, true, Instant.now(), List.of("127.0.0.1")));
    }

    @Test
    void containersWithoutProbesAreStartedAndReady() {
        manager.addPod(pod("Always", new ContainerBuilder().withName("plain").build()));

        assertThat(manager.status("uid-1", "plain", "c-1")).isEqualTo(new ContainerProbeStatus(true, true));
    }

    @Test
    void readinessGatesReadyAndReportsChanges() {
        runner.alwaysAnswer(new Answer.Exit(0, "", ""));
        running("web", "c-1");
        manager.addPod(pod("Always", new ContainerBuilder().withName("web").withReadinessProbe(exec("true").build()).build()));

        await().atMost(WAIT).until(() -> listener.calls().contains("changed web c-1 READINESS")
                && manager.status("uid-1", "web", "c-1").ready());

        runner.alwaysAnswer(new Answer.Exit(1, "not yet", ""));
        await().atMost(WAIT).until(() -> !manager.status("uid-1", "web", "c-1").ready());
        assertThat(manager.status("uid-1", "web", "c-1").started()).isTrue();
        assertThat(events.events()).contains("Warning Unhealthy Readiness probe failed: not yet");
    }

    @Test
    void aFailingLivenessProbeAsksForARestartWithUpstreamsMessage() {
        runner.alwaysAnswer(new Answer.Exit(1, "", "boom"));
        running("web", "c-1");
        manager.addPod(pod("Always", new ContainerBuilder().withName("web").withLivenessProbe(exec("check").build()).build()));

        await().atMost(WAIT).until(() -> listener.calls().contains(
                "restart web c-1 LIVENESS: Container web failed liveness probe, will be restarted"));
        assertThat(events.events()).contains("Warning Unhealthy Liveness probe failed: boom");
    }

    @Test
    void aLivenessFailureAfterTheContainerWasSeenCreatedStillAsksForARestart() {
        // The kubelet's runtime cache can show a container between CreateContainer and StartContainer: its liveness
        // result is then a failure that no probe found, which must not hide the first failure a probe finds.
        runner.alwaysAnswer(new Answer.Exit(1, "", "boom"));
        states.put("uid-1", "web", new RunningContainer("c-1", false, Instant.now(), List.of("127.0.0.1")));
        manager.addPod(pod("Always", new ContainerBuilder().withName("web").withLivenessProbe(exec("check").build()).build()));
        await().atMost(WAIT).until(() -> states.reads() >= 2);

        running("web", "c-1");

        await().atMost(WAIT).until(() -> listener.calls().contains(
                "restart web c-1 LIVENESS: Container web failed liveness probe, will be restarted"));
    }

    @Test
    void withRestartPolicyNeverTheContainerWillNotBeRestarted() {
        runner.alwaysAnswer(new Answer.Exit(1, "", ""));
        running("web", "c-1");
        manager.addPod(pod("Never", new ContainerBuilder().withName("web").withLivenessProbe(exec("check").build()).build()));

        await().atMost(WAIT).until(() -> listener.calls().contains(
                "restart web c-1 LIVENESS: Container web failed liveness probe, will not be restarted"));
    }

    @Test
    void aStartupProbeGatesStartedAndReadiness() {
        runner.alwaysAnswer(new Answer.Exit(1, "", ""));
        running("web", "c-1");
        Container container = new ContainerBuilder().withName("web")
                .withStartupProbe(exec("started").withFailureThreshold(100).build())
                .withReadinessProbe(exec("ready").build())
                .build();
        manager.addPod(pod("Always", container));

        await().atMost(WAIT).until(() -> runner.calls().size() >= 2);
        assertThat(manager.status("uid-1", "web", "c-1")).isEqualTo(new ContainerProbeStatus(false, false));
        assertThat(runner.calls()).allMatch(call -> call.command().equals(List.of("started")));

        runner.alwaysAnswer(new Answer.Exit(0, "", ""));
        await().atMost(WAIT).until(() -> manager.status("uid-1", "web", "c-1").equals(new ContainerProbeStatus(true, true)));
        assertThat(listener.calls()).contains("changed web c-1 STARTUP", "changed web c-1 READINESS");
    }

    @Test
    void removingThePodStopsItsWorkers() {
        runner.alwaysAnswer(new Answer.Exit(0, "", ""));
        running("web", "c-1");
        manager.addPod(pod("Always", new ContainerBuilder().withName("web").withReadinessProbe(exec("true").build()).build()));
        await().atMost(WAIT).until(() -> manager.status("uid-1", "web", "c-1").ready());

        manager.removePod("uid-1");

        // Without workers the container counts as having no probes.
        assertThat(manager.status("uid-1", "web", "c-1")).isEqualTo(new ContainerProbeStatus(true, true));
        // Added again, the pod's readiness starts over from "not ready".
        runner.alwaysAnswer(new Answer.Exit(1, "", ""));
        manager.addPod(pod("Always", new ContainerBuilder().withName("web").withReadinessProbe(exec("true").build()).build()));
        await().atMost(WAIT).until(() -> !manager.status("uid-1", "web", "c-1").ready());
    }
}
