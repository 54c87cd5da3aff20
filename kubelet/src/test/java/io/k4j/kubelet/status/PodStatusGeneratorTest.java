package io.k4j.kubelet.status;

import static io.k4j.kubelet.kuberuntime.TestPods.T0;
import static io.k4j.kubelet.kuberuntime.TestPods.container;
import static io.k4j.kubelet.kuberuntime.TestPods.exited;
import static io.k4j.kubelet.kuberuntime.TestPods.pod;
import static io.k4j.kubelet.kuberuntime.TestPods.readySandbox;
import static io.k4j.kubelet.kuberuntime.TestPods.running;
import static io.k4j.kubelet.kuberuntime.TestPods.status;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.k4j.kubelet.kuberuntime.ContainerWaiting;
import io.k4j.kubelet.kuberuntime.PodRuntimeStatus;
import io.k4j.kubelet.prober.ContainerProbeStatus;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

class PodStatusGeneratorTest {
    private static final List<String> HOST_IPS = List.of("192.168.1.10");
    private final Container c1 = container("c1", "nginx");
    private final Container c2 = container("c2", "sleep", "100");
    private final PodStatusGenerator.ProbeResults allReady = (uid, name, id) -> new ContainerProbeStatus(true, true);

    @Test
    void aPodWithAllContainersRunningIsRunningAndReady() {
        Pod pod = pod("web", "Always", c1, c2);
        PodRuntimeStatus runtime = status(pod, List.of(readySandbox("s1", 0)),
                List.of(running("a", c1, 0, T0), running("b", c2, 0, T0)));

        PodStatus status = PodStatusGenerator.generate(pod, runtime, Map.of(), allReady, HOST_IPS, T0.plusSeconds(5));

        assertThat(status.getPhase()).isEqualTo("Running");
        assertThat(status.getPodIP()).isEqualTo("10.42.0.5");
        assertThat(status.getHostIP()).isEqualTo("192.168.1.10");
        assertThat(status.getQosClass()).isEqualTo("BestEffort");
        assertThat(condition(status, "Ready").getStatus()).isEqualTo("True");
        assertThat(condition(status, "ContainersReady").getStatus()).isEqualTo("True");
        assertThat(condition(status, "Initialized").getStatus()).isEqualTo("True");
        assertThat(condition(status, "PodReadyToStartContainers").getStatus()).isEqualTo("True");
        ContainerStatus first = status.getContainerStatuses().get(0);
        assertThat(first.getContainerID()).isEqualTo("containerd://a");
        assertThat(first.getImageID()).isEqualTo("sha256:abc");
        assertThat(first.getState().getRunning().getStartedAt()).isEqualTo("2026-01-01T00:00:00Z");
        assertThat(first.getReady()).isTrue();
        assertThat(first.getStarted()).isTrue();
    }

    @Test
    void aContainerInBackOffWaitsWithItsReasonAndShowsItsLastTermination() {
        Pod pod = pod("web", "Always", c1);
        PodRuntimeStatus runtime = status(pod, List.of(readySandbox("s1", 0)),
                List.of(exited("b", c1, 1, 3, T0.plusSeconds(10), false), exited("a", c1, 1, 2, T0, false)));
        ContainerWaiting backOff = new ContainerWaiting("CrashLoopBackOff",
                "back-off 40s restarting failed container=c1 pod=web_default(uid-web)");

        PodStatus status = PodStatusGenerator.generate(pod, runtime, Map.of("c1", backOff), allReady, HOST_IPS, T0);

        ContainerStatus container = status.getContainerStatuses().get(0);
        assertThat(container.getState().getWaiting().getReason()).isEqualTo("CrashLoopBackOff");
        assertThat(container.getLastState().getTerminated().getExitCode()).isEqualTo(1);
        assertThat(container.getLastState().getTerminated().getReason()).isEqualTo("Error");
        assertThat(container.getRestartCount()).isEqualTo(3);
        assertThat(status.getPhase()).isEqualTo("Running");
        assertThat(condition(status, "Ready").getStatus()).isEqualTo("False");
        assertThat(condition(status, "Ready").getMessage()).isEqualTo("containers with unready status: [c1]");
    }

    @Test
    void aPodWaitingForItsImageIsPendingWithTheReason() {
        Pod pod = pod("web", "Always", c1);
        PodRuntimeStatus runtime = status(pod, List.of(readySandbox("s1", 0)), List.of());
        ContainerWaiting pull = new ContainerWaiting("ErrImagePull", "Failed to pull image \"nosuch\": not found");

        PodStatus status = PodStatusGenerator.generate(pod, runtime, Map.of("c1", pull), allReady, HOST_IPS, T0);

        assertThat(status.getPhase()).isEqualTo("Pending");
        assertThat(status.getContainerStatuses().get(0).getState().getWaiting().getReason()).isEqualTo("ErrImagePull");
        assertThat(status.getContainerStatuses().get(0).getImage()).isEqualTo("busybox:1.36");
    }

    @Test
    void completedPodsSucceedOrFailByTheirExitCodes() {
        Pod never = pod("job", "Never", c1, c2);
        PodRuntimeStatus allZero = status(never, List.of(readySandbox("s1", 0)),
                List.of(exited("a", c1, 0, 0, T0, false), exited("b", c2, 0, 0, T0, false)));
        PodRuntimeStatus oneFailed = status(never, List.of(readySandbox("s1", 0)),
                List.of(exited("a", c1, 0, 0, T0, false), exited("b", c2, 2, 0, T0, false)));

        PodStatus succeeded = PodStatusGenerator.generate(never, allZero, Map.of(), allReady, HOST_IPS, T0);
        assertThat(succeeded.getPhase()).isEqualTo("Succeeded");
        assertThat(condition(succeeded, "Ready").getReason()).isEqualTo("PodCompleted");
        assertThat(succeeded.getContainerStatuses().get(0).getState().getTerminated().getReason())
                .isEqualTo("Completed");
        assertThat(PodStatusGenerator.generate(never, oneFailed, Map.of(), allReady, HOST_IPS, T0).getPhase())
                .isEqualTo("Failed");
    }

    @Test
    void initContainersGateInitialization() {
        Container init = container("init", "true");
        Pod pod = new PodBuilder(pod("web", "Always", c1)).editSpec().withInitContainers(init).endSpec().build();
        PodRuntimeStatus initializing = status(pod, List.of(readySandbox("s1", 0)), List.of(running("i", init, 0, T0)));

        PodStatus status = PodStatusGenerator.generate(pod, initializing, Map.of(), allReady, HOST_IPS, T0);

        assertThat(status.getPhase()).isEqualTo("Pending");
        assertThat(condition(status, "Initialized").getStatus()).isEqualTo("False");
        assertThat(condition(status, "Initialized").getMessage()).isEqualTo("containers with incomplete status: [init]");
        assertThat(status.getContainerStatuses().get(0).getState().getWaiting().getReason()).isEqualTo("PodInitializing");
        assertThat(status.getInitContainerStatuses().get(0).getState().getRunning()).isNotNull();
    }

    @Test
    void keepsTransitionTimesWhileAConditionHolds() {
        Pod pod = pod("web", "Always", c1);
        PodRuntimeStatus runtime = status(pod, List.of(readySandbox("s1", 0)), List.of(running("a", c1, 0, T0)));
        PodStatus first = PodStatusGenerator.generate(pod, runtime, Map.of(), allReady, HOST_IPS, T0);
        Pod written = new PodBuilder(pod).withStatus(first).build();

        PodStatus second = PodStatusGenerator.generate(written, runtime, Map.of(), allReady, HOST_IPS, T0.plusSeconds(60));

        assertThat(second).isEqualTo(first);
    }

    private static PodCondition condition(PodStatus status, String type) {
        return status.getConditions().stream().filter(condition -> condition.getType().equals(type)).findFirst()
                .orElseThrow();
    }
}
