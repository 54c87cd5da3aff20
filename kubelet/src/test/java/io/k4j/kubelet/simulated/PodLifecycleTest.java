package io.k4j.kubelet.simulated;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PodLifecycleTest {
    private static final Instant START = Instant.parse("2026-01-02T03:04:05Z");
    private static final String HOST_IP = "10.40.0.7";

    private final PodLifecycle lifecycle = new PodLifecycle(Duration.ofSeconds(3));
    private final List<String> allocated = new ArrayList<>();

    private PodAction decide(Pod pod, Instant now) {
        return lifecycle.decide(pod, HOST_IP, started -> {
            allocated.add(started.getMetadata().getUid());
            return "10.42.255.2";
        }, now);
    }

    @Test
    void startsIsWhatTheDecisionSaysForPodsThatStartAndFalseForTheOthers() {
        Pod pending = podBuilder("Always", Map.of()).build();
        Pod running = podBuilder("Always", Map.of()).withStatus(statusOf(decide(pending, START))).build();
        Pod deleting = new PodBuilder(pending).editMetadata().withDeletionTimestamp("2026-01-02T03:04:06Z").endMetadata().build();
        Pod succeeded = new PodBuilder(running).editStatus().withPhase("Succeeded").endStatus().build();
        Pod unknown = new PodBuilder(running).editStatus().withPhase("Unknown").endStatus().build();

        assertThat(PodLifecycle.starts(pending)).isTrue();
        assertThat(decide(pending, START)).isInstanceOf(PodAction.UpdateStatus.class);
        assertThat(PodLifecycle.starts(unknown)).isTrue();
        assertThat(decide(unknown, START)).isInstanceOf(PodAction.UpdateStatus.class);
        assertThat(PodLifecycle.starts(running)).isFalse();
        assertThat(PodLifecycle.starts(deleting)).isFalse();
        assertThat(PodLifecycle.starts(succeeded)).isFalse();
    }

    @Test
    void podWithWrittenStatusHasTheNewVersionAndStatusAndSharesTheSpec() {
        Pod pod = podBuilder("Always", Map.of()).editMetadata().withResourceVersion("5").endMetadata().build();
        PodStatus status = statusOf(decide(pod, START));

        Pod written = PodLifecycle.withStatus(pod, status, "9");

        assertThat(written.getMetadata().getResourceVersion()).isEqualTo("9");
        assertThat(written.getMetadata().getName()).isEqualTo(pod.getMetadata().getName());
        assertThat(written.getMetadata().getUid()).isEqualTo(pod.getMetadata().getUid());
        assertThat(written.getStatus()).isSameAs(status);
        assertThat(written.getSpec()).isSameAs(pod.getSpec());
        assertThat(pod.getMetadata().getResourceVersion()).as("the informer's pod is not changed").isEqualTo("5");
        assertThat(decide(written, START)).as("a started pod needs nothing more").isInstanceOf(PodAction.Nothing.class);
    }

    @Test
    void pendingPodStartsRunningWithAnIpAndReadyContainers() {
        Pod pod = podBuilder("Always", Map.of()).editSpec().addNewInitContainer().withName("setup").withImage("busybox").endInitContainer().endSpec()
                .editStatus().withQosClass("BestEffort").endStatus().build();

        PodStatus status = statusOf(decide(pod, START));

        assertThat(allocated).containsExactly("uid-1");
        assertThat(status.getPhase()).isEqualTo("Running");
        assertThat(status.getPodIP()).isEqualTo("10.42.255.2");
        assertThat(status.getPodIPs()).singleElement().satisfies(ip -> assertThat(ip.getIp()).isEqualTo("10.42.255.2"));
        assertThat(status.getHostIP()).isEqualTo(HOST_IP);
        assertThat(status.getStartTime()).isEqualTo("2026-01-02T03:04:05Z");
        assertThat(status.getQosClass()).isNull();
        assertThat(conditionStatuses(status)).containsEntry("PodReadyToStartContainers", "True").containsEntry("Initialized", "True")
                .containsEntry("ContainersReady", "True").containsEntry("Ready", "True").containsEntry("PodScheduled", "True");
        ContainerStatus container = status.getContainerStatuses().get(0);
        assertThat(container.getName()).isEqualTo("main");
        assertThat(container.getImage()).isEqualTo("nginx:1.27");
        assertThat(container.getImageID()).startsWith("docker.io/library/nginx@sha256:");
        assertThat(container.getContainerID()).startsWith("k4j-simulated://");
        assertThat(container.getReady()).isTrue();
        assertThat(container.getStarted()).isTrue();
        assertThat(container.getRestartCount()).isZero();
        assertThat(container.getState().getRunning().getStartedAt()).isEqualTo("2026-01-02T03:04:05Z");
        ContainerStatus init = status.getInitContainerStatuses().get(0);
        assertThat(init.getState().getTerminated().getReason()).isEqualTo("Completed");
        assertThat(init.getState().getTerminated().getExitCode()).isZero();
    }

    @Test
    void aHostNetworkPodHasTheNodesAddress() {
        Pod pod = podBuilder("Always", Map.of()).editSpec().withHostNetwork(true).endSpec().build();

        PodStatus status = statusOf(decide(pod, START));

        assertThat(status.getPodIP()).isEqualTo(HOST_IP);
        assertThat(allocated).isEmpty();
    }

    @Test
    void aSchedulersPodScheduledConditionIsKept() {
        PodCondition scheduled = new PodConditionBuilder().withType("PodScheduled").withStatus("True").withLastTransitionTime("2026-01-01T00:00:00Z").build();
        Pod pod = podBuilder("Always", Map.of()).editStatus().withConditions(scheduled).endStatus().build();

        PodStatus status = statusOf(decide(pod, START));

        assertThat(status.getConditions()).filteredOn(condition -> condition.getType().equals("PodScheduled"))
                .singleElement().satisfies(condition -> assertThat(condition.getLastTransitionTime()).isEqualTo("2026-01-01T00:00:00Z"));
    }

    @Test
    void aRunningPodOfADeploymentRunsUntilDeleted() {
        Pod running = running(pod("Always", Map.of()), START);

        assertThat(decide(running, START.plus(Duration.ofDays(3)))).isInstanceOf(PodAction.Nothing.class);
    }

    @Test
    void aPodThatEndsWaitsForItsRunTimeThenSucceeds() {
        Pod running = running(pod("Never", Map.of()), START);

        assertThat(decide(running, START.plusSeconds(1))).isEqualTo(new PodAction.WaitUntil(START.plusSeconds(3)));

        PodStatus status = statusOf(decide(running, START.plusSeconds(3)));
        assertThat(status.getPhase()).isEqualTo("Succeeded");
        ContainerStatus container = status.getContainerStatuses().get(0);
        assertThat(container.getState().getRunning()).isNull();
        assertThat(container.getState().getTerminated().getExitCode()).isZero();
        assertThat(container.getState().getTerminated().getReason()).isEqualTo("Completed");
        assertThat(container.getState().getTerminated().getStartedAt()).isEqualTo("2026-01-02T03:04:05Z");
        assertThat(container.getState().getTerminated().getFinishedAt()).isEqualTo("2026-01-02T03:04:08Z");
        assertThat(container.getReady()).isFalse();
        assertThat(status.getPodIP()).isEqualTo("10.42.255.2");
        assertThat(conditionStatuses(status)).containsEntry("Ready", "False").containsEntry("ContainersReady", "False")
                .containsEntry("Initialized", "True").containsEntry("PodScheduled", "True");
        assertThat(status.getConditions()).filteredOn(condition -> condition.getType().equals("Ready"))
                .singleElement().satisfies(condition -> assertThat(condition.getReason()).isEqualTo("PodCompleted"));
    }

    @Test
    void theRunTimeAnnotationOverridesTheDefault() {
        Pod running = running(pod("OnFailure", Map.of(SimulatedAnnotations.RUN_SECONDS, "0.5")), START);

        assertThat(decide(running, START)).isEqualTo(new PodAction.WaitUntil(START.plusMillis(500)));
    }

    @Test
    void anUnreadableRunTimeFallsBackToTheRestartPolicy() {
        assertThat(decide(running(pod("Always", Map.of(SimulatedAnnotations.RUN_SECONDS, "soon")), START), START.plusSeconds(60)))
                .isInstanceOf(PodAction.Nothing.class);
        assertThat(decide(running(pod("Never", Map.of(SimulatedAnnotations.RUN_SECONDS, "-1")), START), START))
                .isEqualTo(new PodAction.WaitUntil(START.plusSeconds(3)));
    }

    @Test
    void aNonZeroExitCodeFailsAPodThatDoesNotRestart() {
        Pod running = running(pod("Never", Map.of(SimulatedAnnotations.EXIT_CODE, "3")), START);

        PodStatus status = statusOf(decide(running, START.plusSeconds(3)));

        assertThat(status.getPhase()).isEqualTo("Failed");
        assertThat(status.getContainerStatuses().get(0).getState().getTerminated().getExitCode()).isEqualTo(3);
        assertThat(status.getContainerStatuses().get(0).getState().getTerminated().getReason()).isEqualTo("Error");
    }

    @Test
    void aFailingContainerRestartsUnderOnFailure() {
        Pod running = running(pod("OnFailure", Map.of(SimulatedAnnotations.EXIT_CODE, "1")), START);

        PodStatus status = statusOf(decide(running, START.plusSeconds(3)));

        assertThat(status.getPhase()).isEqualTo("Running");
        ContainerStatus container = status.getContainerStatuses().get(0);
        assertThat(container.getRestartCount()).isEqualTo(1);
        assertThat(container.getState().getRunning().getStartedAt()).isEqualTo("2026-01-02T03:04:08Z");
        assertThat(container.getLastState().getTerminated().getExitCode()).isEqualTo(1);
        assertThat(container.getLastState().getTerminated().getStartedAt()).isEqualTo("2026-01-02T03:04:05Z");

        Pod restarted = new PodBuilder(running).withStatus(status).build();
        assertThat(decide(restarted, START.plusSeconds(4))).isEqualTo(new PodAction.WaitUntil(START.plusSeconds(6)));
        PodStatus again = statusOf(decide(restarted, START.plusSeconds(6)));
        assertThat(again.getContainerStatuses().get(0).getRestartCount()).isEqualTo(2);
    }

    @Test
    void containersThatExitUnderRestartPolicyAlwaysRestartNoFasterThanOncePerSecond() {
        Pod running = running(pod("Always", Map.of(SimulatedAnnotations.RUN_SECONDS, "0")), START);

        assertThat(decide(running, START)).isEqualTo(new PodAction.WaitUntil(START.plus(PodLifecycle.MIN_RESTART_INTERVAL)));
        PodStatus status = statusOf(decide(running, START.plusSeconds(1)));
        assertThat(status.getPhase()).isEqualTo("Running");
        assertThat(status.getContainerStatuses().get(0).getRestartCount()).isEqualTo(1);
    }

    @Test
    void jobPodsEndAfterTheDefaultRunTime() {
        Pod jobPod = podBuilder("OnFailure", Map.of()).editMetadata().addNewOwnerReference().withApiVersion("batch/v1").withKind("Job")
                .withName("pi").withUid("job-uid").withController(true).endOwnerReference().endMetadata().build();

        assertThat(lifecycle.runDuration(jobPod)).contains(Duration.ofSeconds(3));
        assertThat(statusOf(decide(running(jobPod, START), START.plusSeconds(3))).getPhase()).isEqualTo("Succeeded");
    }

    @Test
    void aDeletedRunningPodIsTerminatedThenDeleted() {
        Pod deleting = new PodBuilder(running(pod("Always", Map.of()), START)).editMetadata()
                .withDeletionTimestamp("2026-01-02T03:05:00Z").withDeletionGracePeriodSeconds(30L).endMetadata().build();

        PodAction action = decide(deleting, START.plusSeconds(60));

        assertThat(action).isInstanceOfSatisfying(PodAction.Delete.class, delete -> {
            PodStatus status = delete.finalStatus().orElseThrow();
            assertThat(status.getPhase()).isEqualTo("Succeeded");
            assertThat(status.getContainerStatuses().get(0).getState().getTerminated()).isNotNull();
        });
    }

    @Test
    void deletedPodsThatNeverRanOrEndedAreDeletedWithoutAStatus() {
        Pod pending = podBuilder("Always", Map.of()).editMetadata().withDeletionTimestamp("2026-01-02T03:05:00Z").endMetadata().build();
        Pod succeeded = new PodBuilder(running(pod("Never", Map.of()), START)).editStatus().withPhase("Succeeded").endStatus()
                .editMetadata().withDeletionTimestamp("2026-01-02T03:05:00Z").endMetadata().build();
        allocated.clear();

        assertThat(decide(pending, START)).isEqualTo(new PodAction.Delete(Optional.empty()));
        assertThat(decide(succeeded, START)).isEqualTo(new PodAction.Delete(Optional.empty()));
        assertThat(allocated).isEmpty();
    }

    @Test
    void endedPodsAreLeftAlone() {
        Pod failed = new PodBuilder(running(pod("Never", Map.of()), START)).editStatus().withPhase("Failed").endStatus().build();

        assertThat(decide(failed, START.plusSeconds(100))).isInstanceOf(PodAction.Nothing.class);
    }

    @Test
    void readinessGatesHoldReadyBackUntilTheirConditionIsTrue() {
        Pod gated = podBuilder("Always", Map.of()).editSpec().addNewReadinessGate().withConditionType("example.com/lb").endReadinessGate().endSpec().build();

        PodStatus started = statusOf(decide(gated, START));
        assertThat(conditionStatuses(started)).containsEntry("Ready", "False").containsEntry("ContainersReady", "True");

        Pod running = new PodBuilder(gated).withStatus(started).build();
        assertThat(decide(running, START.plusSeconds(1))).isInstanceOf(PodAction.Nothing.class);

        Pod gateOpen = new PodBuilder(running).editStatus()
                .addToConditions(new PodConditionBuilder().withType("example.com/lb").withStatus("True").build()).endStatus().build();
        PodStatus ready = statusOf(decide(gateOpen, START.plusSeconds(2)));
        assertThat(conditionStatuses(ready)).containsEntry("Ready", "True").containsEntry("example.com/lb", "True");
    }

    @Test
    void readinessTakenAwayWhileTheNodeWasNotReadyIsRestored() {
        Pod running = running(pod("Always", Map.of()), START);
        Pod markedNotReady = new PodBuilder(running).editStatus()
                .withConditions(running.getStatus().getConditions().stream()
                        .map(condition -> condition.getType().equals("Ready")
                                ? new PodConditionBuilder(condition).withStatus("False").withReason("NodeNotReady").build()
                                : condition)
                        .toList())
                .endStatus().build();

        PodStatus restored = statusOf(decide(markedNotReady, START.plusSeconds(60)));

        assertThat(conditionStatuses(restored)).containsEntry("Ready", "True").containsEntry("ContainersReady", "True")
                .containsEntry("PodScheduled", "True").containsEntry("Initialized", "True");
        assertThat(restored.getConditions()).filteredOn(condition -> condition.getType().equals("Ready"))
                .singleElement().satisfies(condition -> assertThat(condition.getLastTransitionTime()).isEqualTo("2026-01-02T03:05:05Z"));
        assertThat(restored.getContainerStatuses()).isEqualTo(running.getStatus().getContainerStatuses());
    }

    @Test
    void imageIdsLookLikeRegistryDigests() {
        assertThat(PodLifecycle.imageId("nginx")).startsWith("docker.io/library/nginx@sha256:").hasSize("docker.io/library/nginx@sha256:".length() + 64);
        assertThat(PodLifecycle.imageId("bitnami/redis:7")).startsWith("docker.io/bitnami/redis@sha256:");
        assertThat(PodLifecycle.imageId("registry.example.com:5000/team/app:v1")).startsWith("registry.example.com:5000/team/app@sha256:");
        assertThat(PodLifecycle.imageId("busybox@sha256:abc")).isEqualTo("busybox@sha256:abc");
        assertThat(PodLifecycle.imageId("nginx:1.27")).isNotEqualTo(PodLifecycle.imageId("nginx:1.26"));
        // Remembered: each status write names the image of every container.
        assertThat(PodLifecycle.imageId("nginx:1.27")).isSameAs(PodLifecycle.imageId("nginx:1.27"));
    }

    private Pod running(Pod pending, Instant at) {
        return new PodBuilder(pending).withStatus(statusOf(decide(pending, at))).build();
    }

    private static PodStatus statusOf(PodAction action) {
        assertThat(action).isInstanceOf(PodAction.UpdateStatus.class);
        return ((PodAction.UpdateStatus) action).status();
    }

    private static Map<String, String> conditionStatuses(PodStatus status) {
        Map<String, String> statuses = new LinkedHashMap<>();
        status.getConditions().forEach(condition -> statuses.put(condition.getType(), condition.getStatus()));
        return statuses;
    }

    private static Pod pod(String restartPolicy, Map<String, String> annotations) {
        return podBuilder(restartPolicy, annotations).build();
    }

    private static PodBuilder podBuilder(String restartPolicy, Map<String, String> annotations) {
        return new PodBuilder()
                .withNewMetadata().withNamespace("default").withName("web").withUid("uid-1").withResourceVersion("7").withAnnotations(annotations).endMetadata()
                .withNewSpec().withNodeName("k4j-sim-0").withRestartPolicy(restartPolicy)
                .addNewContainer().withName("main").withImage("nginx:1.27").endContainer()
                .endSpec()
                .withNewStatus().withPhase("Pending").endStatus();
    }
}
