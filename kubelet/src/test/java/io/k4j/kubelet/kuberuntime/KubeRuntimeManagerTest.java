package io.k4j.kubelet.kuberuntime;

import static io.k4j.kubelet.kuberuntime.TestPods.container;
import static io.k4j.kubelet.kuberuntime.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.k4j.controllerkit.testing.FakeEventRecorder;
import io.k4j.controllerkit.testing.MutableClock;
import io.k4j.kubelet.KubeletConfig;
import io.k4j.kubelet.cri.CriException;
import io.k4j.kubelet.cri.testing.FakeRuntimeService;
import io.k4j.kubelet.cri.v1.ContainerConfig;
import io.k4j.kubelet.cri.v1.PodSandboxConfig;
import io.k4j.kubelet.cri.v1.PodSandboxState;
import io.k4j.kubelet.podobjects.PodObjectSource;
import io.k4j.kubelet.volume.PendingVolumes;
import io.k4j.kubelet.volume.VolumeMountException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

class KubeRuntimeManagerTest {
    @TempDir
    Path root;

    private final MutableClock clock = new MutableClock(TestPods.T0);
    private final FakeRuntimeService runtime = new FakeRuntimeService(clock);
    private final FakeEventRecorder events = new FakeEventRecorder();

    private KubeRuntimeManager manager() {
        KubeletConfig config = KubeletConfig.defaults("node1", root, List.of("192.168.1.10"), List.of("10.43.0.10"));
        ImageManager images = new ImageManager(runtime, new NoObjects(), events, clock);
        return new KubeRuntimeManager(runtime, images, TestPods.literalEnvironment(), TestPods.noHooks(), events, clock,
                config, 8L << 30);
    }

    private SyncOutcome sync(KubeRuntimeManager manager, Pod pod) {
        PodRuntimeStatus status = manager.podStatus(pod.getMetadata().getUid(), pod.getMetadata().getName(), "default");
        return manager.syncPod(pod, status, PendingVolumes.of(TestPods.noVolumes(pod.getMetadata().getUid())), Set.of());
    }

    @Test
    void runsASandboxAndTheContainersWithUpstreamsLabelsAndLogPaths() {
        runtime.addPullableImage("busybox:1.36");
        Pod pod = new PodBuilder(pod("web", "Always", container("c1", "sleep", "$(SECONDS)"), container("c2", "sh")))
                .editSpec().editFirstContainer().addNewEnv().withName("SECONDS").withValue("100").endEnv()
                .addNewPort().withContainerPort(80).withHostPort(8080).endPort().endContainer().endSpec()
                .build();
        KubeRuntimeManager manager = manager();

        SyncOutcome outcome = sync(manager, pod);

        assertThat(outcome.waiting()).isEmpty();
        assertThat(outcome.started()).containsExactlyInAnyOrder("c1", "c2");
        PodRuntimeStatus status = manager.podStatus("uid-web", "web", "default");
        assertThat(status.latestSandbox()).hasValueSatisfying(sandbox -> assertThat(sandbox.ready()).isTrue());
        assertThat(status.runningContainers()).extracting(ContainerRuntimeStatus::name).containsExactlyInAnyOrder("c1", "c2");
        PodSandboxConfig sandbox = runtime.sandboxConfig(status.latestSandbox().get().id());
        assertThat(sandbox.getHostname()).isEqualTo("web");
        assertThat(sandbox.getLogDirectory()).isEqualTo(root.resolve("pods-logs/default_web_uid-web").toString());
        assertThat(sandbox.getLabelsMap()).containsEntry(KubeletLabels.POD_UID, "uid-web");
        assertThat(sandbox.getDnsConfig().getServersList()).containsExactly("10.43.0.10");
        assertThat(sandbox.getDnsConfig().getSearchesList()).startsWith("default.svc.cluster.local",
                "svc.cluster.local", "cluster.local");
        assertThat(sandbox.getPortMappingsList()).singleElement()
                .satisfies(mapping -> assertThat(mapping.getHostPort()).isEqualTo(8080));
        ContainerConfig c1 = runtime.containerConfig(status.latest("c1").get().id());
        assertThat(c1.getCommandList()).containsExactly("sleep", "100");
        assertThat(c1.getLogPath()).isEqualTo("c1/0.log");
        assertThat(c1.getLabelsMap()).containsEntry(KubeletLabels.CONTAINER_NAME, "c1");
        assertThat(root.resolve("pods-logs/default_web_uid-web/c1")).isDirectory();
        assertThat(events.events()).anyMatch(event -> event.contains("Started container c1"));
    }

    @Test
    void theSandboxIsCreatedBeforeTheVolumesAreAwaitedAndNoContainerStartsWhenTheyFailed() {
        runtime.addPullableImage("busybox:1.36");
        Pod pod = pod("web", "Always", container("c1", "sleep", "100"));
        KubeRuntimeManager manager = manager();
        PodRuntimeStatus status = manager.podStatus("uid-web", "web", "default");
        List<String> callsBeforeTheVolumes = new ArrayList<>();

        SyncOutcome outcome = manager.syncPod(pod, status, () -> {
            callsBeforeTheVolumes.addAll(runtime.calls());
            throw new VolumeMountException(VolumeMountException.FAILED_MOUNT, "configmap \"settings\" not found");
        }, Set.of());

        assertThat(callsBeforeTheVolumes).contains("RunPodSandbox").doesNotContain("CreateContainer");
        assertThat(outcome.started()).isEmpty();
        assertThat(runtime.containers()).isEmpty();
        assertThat(runtime.sandboxes()).singleElement().satisfies(sandbox ->
                assertThat(sandbox.getState()).isEqualTo(PodSandboxState.SANDBOX_READY));

        // Once the volumes are there, the next sync starts the container in the sandbox that is already there.
        outcome = sync(manager, pod);

        assertThat(outcome.started()).containsExactly("c1");
        assertThat(runtime.sandboxes()).hasSize(1);
    }

    @Test
    void anUnknownImageIsErrImagePullThenImagePullBackOffWithTheRegistrysMessage() {
        Pod pod = pod("web", "Always", new ContainerBuilder().withName("c1").withImage("nosuch").build());
        KubeRuntimeManager manager = manager();

        ContainerWaiting first = sync(manager, pod).waiting().get("c1");
        // As upstream: the waiting message is the runtime's error itself; the event adds what failed.
        assertThat(first.reason()).isEqualTo("ErrImagePull");
        assertThat(first.message()).startsWith("rpc error: code = NotFound desc = "
                + "failed to pull and unpack image \"docker.io/library/nosuch:latest\"");
        assertThat(events.fieldPathEvents()).containsExactly(
                "spec.containers{c1} Normal Pulling Pulling image \"nosuch\"",
                "spec.containers{c1} Warning Failed Failed to pull image \"nosuch\": " + first.message(),
                "spec.containers{c1} Warning Failed Error: ErrImagePull");

        ContainerWaiting second = sync(manager, pod).waiting().get("c1");
        assertThat(second.reason()).isEqualTo("ImagePullBackOff");
        assertThat(second.message()).isEqualTo("Back-off pulling image \"nosuch\": ErrImagePull: " + first.message());
        assertThat(events.fieldPathEvents()).endsWith(
                "spec.containers{c1} Normal BackOff Back-off pulling image \"nosuch\"",
                "spec.containers{c1} Warning Failed Error: ImagePullBackOff");
    }

    @Test
    void imagePullsBackOffPerPodAndImageFromTenSecondsDoublingToFiveMinutes() {
        Pod pod = pod("web", "Always", new ContainerBuilder().withName("c1").withImage("nosuch").build());
        ImageManager images = new ImageManager(runtime, new NoObjects(), events, clock);
        io.fabric8.kubernetes.api.model.Container container = pod.getSpec().getContainers().get(0);

        List<Duration> delays = new java.util.ArrayList<>();
        for (int attempt = 0; attempt < 7; attempt++) {
            assertThat(images.ensureImageExists(pod, container, PodSandboxConfig.getDefaultInstance()))
                    .isInstanceOf(ImageManager.Result.Failed.class)
                    .extracting(result -> ((ImageManager.Result.Failed) result).reason()).isEqualTo("ErrImagePull");
            Duration delay = Duration.between(clock.instant(), images.backoffUntil(pod, container).orElseThrow());
            delays.add(delay);
            clock.advance(delay.minusSeconds(1));
            assertThat(((ImageManager.Result.Failed) images.ensureImageExists(pod, container,
                    PodSandboxConfig.getDefaultInstance())).reason()).isEqualTo("ImagePullBackOff");
            clock.advance(Duration.ofSeconds(1));
        }
        assertThat(delays).containsExactly(Duration.ofSeconds(10), Duration.ofSeconds(20), Duration.ofSeconds(40),
                Duration.ofSeconds(80), Duration.ofSeconds(160), Duration.ofSeconds(300), Duration.ofSeconds(300));

        // Another pod of the same image is not held back by this pod's failures.
        Pod other = pod("other", "Always", new ContainerBuilder().withName("c1").withImage("nosuch").build());
        assertThat(((ImageManager.Result.Failed) images.ensureImageExists(pod, container,
                PodSandboxConfig.getDefaultInstance())).reason()).isEqualTo("ErrImagePull");
        assertThat(((ImageManager.Result.Failed) images.ensureImageExists(pod, container,
                PodSandboxConfig.getDefaultInstance())).reason()).isEqualTo("ImagePullBackOff");
        assertThat(((ImageManager.Result.Failed) images.ensureImageExists(other, other.getSpec().getContainers().get(0),
                PodSandboxConfig.getDefaultInstance())).reason()).isEqualTo("ErrImagePull");
    }

    @Test
    void pullDurationsAreShownAsGoPrintsThem() {
        assertThat(ImageManager.goDuration(Duration.ofMillis(734))).isEqualTo("734ms");
        assertThat(ImageManager.goDuration(Duration.ofMillis(1207))).isEqualTo("1.207s");
        assertThat(ImageManager.goDuration(Duration.ofMillis(62_500))).isEqualTo("1m2.5s");
        assertThat(ImageManager.goDuration(Duration.ofHours(1))).isEqualTo("1h0m0s");
        assertThat(ImageManager.goDuration(Duration.ZERO)).isEqualTo("0s");
    }

    @Test
    void containerEventsNameTheContainerByItsFieldPath() {
        runtime.addPullableImage("busybox:1.36");
        Pod pod = new PodBuilder(pod("web", "Always", container("c1", "sleep", "100")))
                .editSpec().addNewInitContainer().withName("init").withImage("busybox:1.36").withCommand("true")
                .endInitContainer().endSpec().build();
        KubeRuntimeManager manager = manager();

        sync(manager, pod);

        assertThat(events.fieldPathEvents()).startsWith(
                "spec.initContainers{init} Normal Pulling Pulling image \"busybox:1.36\"",
                "spec.initContainers{init} Normal Pulled Successfully pulled image \"busybox:1.36\" in 0s "
                        + "(0s including waiting). Image size: 1024 bytes.",
                "spec.initContainers{init} Normal Created Created container init",
                "spec.initContainers{init} Normal Started Started container init");
    }

    @Test
    void aCommandThatCannotRunIsRunContainerErrorThenCrashLoopBackOff() {
        runtime.addPullableImage("busybox:1.36");
        Pod pod = pod("web", "Always", container("c1", "nosuch"));
        KubeRuntimeManager manager = manager();
        runtime.failNext("StartContainer", new CriException(CriException.Code.UNKNOWN,
                "failed to create containerd task: exec: \"nosuch\": executable file not found in $PATH"));

        ContainerWaiting first = sync(manager, pod).waiting().get("c1");
        // The gRPC status's description, as upstream shows it.
        assertThat(first).isEqualTo(new ContainerWaiting("RunContainerError",
                "failed to create containerd task: exec: \"nosuch\": executable file not found in $PATH"));
        assertThat(events.fieldPathEvents()).contains("spec.containers{c1} Warning Failed Error: " + first.message());

        // containerd reports the container that could not start as exited (128); as upstream, the first restart
        // is immediate and the next one waits 10 s.
        runtime.exitContainer(runtime.containers().get(0).getId(), 128, "StartError");
        assertThat(sync(manager, pod).started()).containsExactly("c1");
        String restartedId = manager.podStatus("uid-web", "web", "default").latest("c1").orElseThrow().id();
        runtime.exitContainer(restartedId, 1, "Error");

        SyncOutcome backedOff = sync(manager, pod);
        assertThat(backedOff.waiting().get("c1")).isEqualTo(new ContainerWaiting("CrashLoopBackOff",
                "back-off 10s restarting failed container=c1 pod=web_default(uid-web)"));
        assertThat(backedOff.requeueAt()).contains(TestPods.T0.plusSeconds(10));
        assertThat(events.fieldPathEvents()).endsWith("spec.containers{c1} Warning BackOff "
                + "Back-off restarting failed container c1 in pod web_default(uid-web)");

        clock.advance(Duration.ofSeconds(10));
        assertThat(sync(manager, pod).started()).containsExactly("c1");
        ContainerRuntimeStatus latest = manager.podStatus("uid-web", "web", "default").latest("c1").orElseThrow();
        assertThat(latest.running()).isTrue();
        assertThat(latest.restartCount()).isEqualTo(2);
        assertThat(runtime.containerConfig(latest.id()).getLogPath()).isEqualTo("c1/2.log");
    }

    @Test
    void livenessRestartsBackOffFromThePreviousInstancesExit() {
        runtime.addPullableImage("busybox:1.36");
        Pod pod = pod("web", "Always", container("c1", "sleep", "100"));
        KubeRuntimeManager manager = manager();
        sync(manager, pod);

        // The first two liveness failures restart at once (the first has no exited predecessor; the second starts
        // the 10 s backoff from its predecessor's exit); the third waits for it, though the killed instance was
        // still running in the status the kill was decided on.
        for (int restart = 1; restart <= 2; restart++) {
            clock.advance(Duration.ofSeconds(2));
            assertThat(syncUnhealthy(manager, pod).started()).as("restart %d", restart).containsExactly("c1");
        }
        clock.advance(Duration.ofSeconds(2));
        SyncOutcome third = syncUnhealthy(manager, pod);
        assertThat(third.started()).isEmpty();
        assertThat(third.waiting().get("c1")).isEqualTo(new ContainerWaiting("CrashLoopBackOff",
                "back-off 10s restarting failed container=c1 pod=web_default(uid-web)"));
        assertThat(third.requeueAt()).contains(TestPods.T0.plusSeconds(14));
        assertThat(manager.podStatus("uid-web", "web", "default").latest("c1").orElseThrow().restartCount()).isEqualTo(2);
    }

    /** A sync after the liveness probe of the newest c1 failed. */
    private SyncOutcome syncUnhealthy(KubeRuntimeManager manager, Pod pod) {
        PodRuntimeStatus status = manager.podStatus(pod.getMetadata().getUid(), pod.getMetadata().getName(), "default");
        String unhealthy = status.latest("c1").orElseThrow().id();
        return manager.syncPod(pod, status, PendingVolumes.of(TestPods.noVolumes(pod.getMetadata().getUid())), Set.of(unhealthy));
    }

    @Test
    void killingAPodStopsItsContainersWithTheGracePeriodAndFreesTheSandbox() {
        runtime.addPullableImage("busybox:1.36");
        Pod pod = new PodBuilder(pod("web", "Always", container("c1", "sleep", "100")))
                .editSpec().withTerminationGracePeriodSeconds(7L).endSpec().build();
        KubeRuntimeManager manager = manager();
        sync(manager, pod);
        PodRuntimeStatus status = manager.podStatus("uid-web", "web", "default");
        String containerId = status.latest("c1").get().id();

        manager.killPod(pod, status, KubeRuntimeManager.gracePeriod(pod));
        manager.removePod(manager.podStatus("uid-web", "web", "default"));

        assertThat(runtime.calls()).containsSubsequence("StopContainer", "StopPodSandbox", "RemovePodSandbox");
        assertThat(runtime.sandboxes()).isEmpty();
        assertThat(runtime.containers()).isEmpty();
        assertThat(events.events()).anyMatch(event -> event.contains("Stopping container c1"));
        assertThat(containerId).isNotEmpty();
    }

    @Test
    void aRestartedKubeletFindsWhatRunsAndChangesNothing() {
        runtime.addPullableImage("busybox:1.36");
        Pod pod = pod("web", "Always", container("c1", "sleep", "100"));
        sync(manager(), pod);
        runtime.clearCalls();

        KubeRuntimeManager restarted = manager();
        assertThat(restarted.listPods()).containsKey("uid-web");
        SyncOutcome outcome = sync(restarted, pod);

        assertThat(outcome.started()).isEmpty();
        assertThat(runtime.calls()).doesNotContain("RunPodSandbox", "CreateContainer", "StartContainer",
                "StopContainer", "StopPodSandbox");
    }

    /** No pull secrets, ConfigMaps or Services. */
    private static final class NoObjects implements PodObjectSource {
        @Override
        public Optional<ConfigMap> configMap(String namespace, String name) {
            return Optional.empty();
        }

        @Override
        public Optional<Secret> secret(String namespace, String name) {
            return Optional.empty();
        }

        @Override
        public List<Service> services(String namespace) {
            return List.of();
        }

        @Override
        public TokenRequest requestToken(String namespace, String serviceAccountName, TokenRequest request) {
            throw new UnsupportedOperationException("no tokens in this test");
        }
    }
}
