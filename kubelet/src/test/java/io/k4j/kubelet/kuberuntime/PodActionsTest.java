package io.k4j.kubelet.kuberuntime;

import static io.k4j.kubelet.kuberuntime.TestPods.T0;
import static io.k4j.kubelet.kuberuntime.TestPods.container;
import static io.k4j.kubelet.kuberuntime.TestPods.deadSandbox;
import static io.k4j.kubelet.kuberuntime.TestPods.exited;
import static io.k4j.kubelet.kuberuntime.TestPods.pod;
import static io.k4j.kubelet.kuberuntime.TestPods.readySandbox;
import static io.k4j.kubelet.kuberuntime.TestPods.running;
import static io.k4j.kubelet.kuberuntime.TestPods.status;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.Set;

class PodActionsTest {
    private final Container web = container("web", "nginx");
    private final Container sidecar = container("sidecar", "sleep", "100");

    @Test
    void aNewPodGetsASandboxAndAllItsContainers() {
        Pod pod = pod("p", "Always", web, sidecar);

        PodActions actions = PodActions.compute(pod, status(pod, List.of(), List.of()), Set.of());

        assertThat(actions.killPod()).isFalse();
        assertThat(actions.createSandbox()).isTrue();
        assertThat(actions.sandboxAttempt()).isZero();
        assertThat(actions.containersToStart()).containsExactly("web", "sidecar");
    }

    @Test
    void initContainersRunFirstOneAtATime() {
        Container init1 = container("init1", "true");
        Container init2 = container("init2", "true");
        Pod pod = new PodBuilder(pod("p", "Always", web)).editSpec().withInitContainers(init1, init2).endSpec().build();

        PodActions fresh = PodActions.compute(pod, status(pod, List.of(), List.of()), Set.of());
        assertThat(fresh.createSandbox()).isTrue();
        assertThat(fresh.nextInitContainer()).contains("init1");
        assertThat(fresh.containersToStart()).isEmpty();

        PodActions running = PodActions.compute(pod, status(pod, List.of(readySandbox("s1", 0)),
                List.of(TestPods.running("i1", init1, 0, T0))), Set.of());
        assertThat(running.nextInitContainer()).isEmpty();
        assertThat(running.containersToStart()).isEmpty();

        PodActions second = PodActions.compute(pod, status(pod, List.of(readySandbox("s1", 0)),
                List.of(exited("i1", init1, 0, 0, T0, true))), Set.of());
        assertThat(second.nextInitContainer()).contains("init2");

        PodActions done = PodActions.compute(pod, status(pod, List.of(readySandbox("s1", 0)),
                List.of(exited("i2", init2, 0, 0, T0.plusSeconds(2), true), exited("i1", init1, 0, 0, T0, true))),
                Set.of());
        assertThat(done.nextInitContainer()).isEmpty();
        assertThat(done.containersToStart()).containsExactly("web");
    }

    @Test
    void aFailedInitContainerFailsAPodThatNeverRestarts() {
        Container init = container("init", "false");
        Pod never = new PodBuilder(pod("p", "Never", web)).editSpec().withInitContainers(init).endSpec().build();
        Pod always = new PodBuilder(pod("p", "Always", web)).editSpec().withInitContainers(init).endSpec().build();
        List<ContainerRuntimeStatus> failed = List.of(exited("i1", init, 1, 0, T0, true));

        assertThat(PodActions.compute(never, status(never, List.of(readySandbox("s1", 0)), failed), Set.of()).initFailed())
                .isTrue();
        PodActions retry = PodActions.compute(always, status(always, List.of(readySandbox("s1", 0)), failed), Set.of());
        assertThat(retry.initFailed()).isFalse();
        assertThat(retry.nextInitContainer()).contains("init");
    }

    @Test
    void restartPolicyDecidesWhetherAnExitedContainerStartsAgain() {
        for (String policy : List.of("Always", "OnFailure", "Never")) {
            Pod pod = pod("p", policy, web, sidecar);
            PodRuntimeStatus status = status(pod, List.of(readySandbox("s1", 0)),
                    List.of(exited("c1", web, 0, 0, T0, false), exited("c2", sidecar, 2, 0, T0, false)));

            List<String> toStart = PodActions.compute(pod, status, Set.of()).containersToStart();

            switch (policy) {
                case "Always" -> assertThat(toStart).containsExactly("web", "sidecar");
                case "OnFailure" -> assertThat(toStart).containsExactly("sidecar");
                default -> assertThat(toStart).isEmpty();
            }
        }
    }

    @Test
    void aPodWithNothingLeftToRunHasItsSandboxStopped() {
        Pod pod = pod("p", "Never", web);
        PodActions actions = PodActions.compute(pod, status(pod, List.of(readySandbox("s1", 0)),
                List.of(exited("c1", web, 0, 0, T0, false))), Set.of());

        assertThat(actions.killPod()).isTrue();
        assertThat(actions.createSandbox()).isFalse();
    }

    @Test
    void aDeadSandboxIsRecreatedUnlessThePodMustNotRunAgain() {
        Pod always = pod("p", "Always", web);
        PodRuntimeStatus dead = status(always, List.of(deadSandbox("s1", 0)),
                List.of(exited("c1", web, 137, 0, T0, false)));

        PodActions recreate = PodActions.compute(always, dead, Set.of());
        assertThat(recreate.killPod()).isTrue();
        assertThat(recreate.createSandbox()).isTrue();
        assertThat(recreate.sandboxAttempt()).isEqualTo(1);

        Pod never = pod("p", "Never", web);
        PodActions stay = PodActions.compute(never, status(never, dead.sandboxes(), dead.containers()), Set.of());
        assertThat(stay.createSandbox()).isFalse();
    }

    @Test
    void runningHealthyContainersAreLeftAloneAndUnhealthyOnesRestarted() {
        Pod pod = pod("p", "Always", web);
        PodRuntimeStatus status = status(pod, List.of(readySandbox("s1", 0)), List.of(running("c1", web, 0, T0)));

        PodActions healthy = PodActions.compute(pod, status, Set.of());
        assertThat(healthy.containersToStart()).isEmpty();
        assertThat(healthy.containersToKill()).isEmpty();
        assertThat(healthy.killPod()).isFalse();

        PodActions unhealthy = PodActions.compute(pod, status, Set.of("c1"));
        assertThat(unhealthy.containersToKill()).containsEntry("c1", "Container web failed liveness probe, will be restarted");
        assertThat(unhealthy.containersToStart()).containsExactly("web");
    }

    @Test
    void aChangedImageRestartsTheContainer() {
        Pod pod = pod("p", "Always", web);
        PodRuntimeStatus status = status(pod, List.of(readySandbox("s1", 0)), List.of(running("c1", web, 0, T0)));
        Pod changed = pod("p", "Always", new ContainerBuilder(web).withImage("busybox:1.37").build());

        PodActions actions = PodActions.compute(changed, status, Set.of());

        assertThat(actions.containersToKill()).containsEntry("c1", "Container web definition changed, will be restarted");
        assertThat(actions.containersToStart()).containsExactly("web");
        assertThat(actions.sandboxId()).isEqualTo(Optional.of("s1"));
    }
}
