package io.k4j.kubelet.kuberuntime;

import static io.k4j.kubelet.kuberuntime.TestPods.container;
import static io.k4j.kubelet.kuberuntime.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.k4j.controllerkit.testing.FakeEventRecorder;
import io.k4j.kubelet.KubeletConfig;
import io.k4j.kubelet.containerd.ContainerdConfig;
import io.k4j.kubelet.containerd.ContainerdProcess;
import io.k4j.kubelet.containerd.RealContainerd;
import io.k4j.kubelet.containerd.TestImages;
import io.k4j.kubelet.containerd.TestNetwork;
import io.k4j.kubelet.cri.CriConnection;
import io.k4j.kubelet.cri.CriTimeouts;
import io.k4j.kubelet.cri.v1.ContainerFilter;
import io.k4j.kubelet.cri.v1.PodSandbox;
import io.k4j.kubelet.cri.v1.PodSandboxFilter;
import io.k4j.kubelet.podobjects.PodObjectSource;
import io.k4j.kubelet.prober.ExecResult;
import io.k4j.kubelet.volume.PendingVolumes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The runtime manager against a real containerd started by {@link ContainerdProcess} in a temporary directory, with
 * test-built busybox and pause images and a bridge network of its own. Needs root, containerd, runc, umoci and the
 * CNI plugins; skipped otherwise.
 */
class KubeRuntimeManagerContainerdTest {
    private static final String BRIDGE = "k4jtest0";
    private static Path directory;
    private static ContainerdProcess containerd;
    private static CriConnection connection;

    private final FakeEventRecorder events = new FakeEventRecorder();

    @BeforeAll
    static void startContainerd() throws Exception {
        RealContainerd.assumeAvailable();
        assumeTrue(TestImages.available(), "umoci, ctr or busybox is missing");
        assumeTrue(Files.isExecutable(Path.of("/usr/lib/cni/bridge")), "the CNI plugins are missing");
        directory = RealContainerd.temporaryDirectory();
        TestNetwork.write(directory.resolve("cni"), directory, BRIDGE, "10.250.77.0/24");
        containerd = ContainerdProcess.start(ContainerdConfig.defaults(directory.resolve("containerd"),
                directory.resolve("cni"), Optional.empty()), Duration.ofSeconds(30));
        TestImages.importInto(containerd.config().socket(), directory.resolve("images"));
        connection = CriConnection.open(containerd.endpoint(), CriTimeouts.DEFAULT);
    }

    @AfterEach
    void removeEverything() {
        if (connection == null) {
            return;
        }
        for (PodSandbox sandbox : connection.runtimeService().listPodSandbox(PodSandboxFilter.getDefaultInstance())) {
            connection.runtimeService().stopPodSandbox(sandbox.getId());
            connection.runtimeService().removePodSandbox(sandbox.getId());
        }
    }

    @AfterAll
    static void stopContainerd() throws Exception {
        if (connection != null) {
            connection.close();
        }
        if (containerd != null) {
            containerd.close();
        }
        TestNetwork.remove(BRIDGE);
        if (directory != null) {
            // host-local and containerd leave nothing mounted once the sandboxes are removed.
            new ProcessBuilder("rm", "-rf", directory.toString()).start().waitFor();
        }
    }

    private KubeRuntimeManager manager() {
        KubeletConfig config = KubeletConfig.defaults("node1", directory.resolve("kubelet"), List.of("127.0.0.1"),
                List.of());
        ImageManager images = new ImageManager(connection.imageService(), new NoObjects(), events,
                InstantSource.system());
        return new KubeRuntimeManager(connection.runtimeService(), images, TestPods.literalEnvironment(),
                TestPods.noHooks(), events, InstantSource.system(), config, 8L << 30);
    }

    private static Pod busyboxPod(String name, String... command) {
        return new PodBuilder(pod(name, "Always", new ContainerBuilder(container("c1", command))
                .withImage(TestImages.BUSYBOX).withImagePullPolicy("IfNotPresent").build()))
                .build();
    }

    private static SyncOutcome sync(KubeRuntimeManager manager, Pod pod) {
        PodRuntimeStatus status = manager.podStatus(pod.getMetadata().getUid(), pod.getMetadata().getName(), "default");
        return manager.syncPod(pod, status, PendingVolumes.of(TestPods.noVolumes(pod.getMetadata().getUid())), Set.of());
    }

    @Test
    void runsAPodWithItsOwnIpLogsAndExec() throws Exception {
        KubeRuntimeManager manager = manager();
        Pod pod = busyboxPod("web", "sh", "-c", "echo hello from c1; exec sleep 3600");

        SyncOutcome outcome = sync(manager, pod);

        assertThat(outcome.waiting()).isEmpty();
        PodRuntimeStatus status = manager.podStatus("uid-web", "web", "default");
        assertThat(status.podIps()).as("events: %s", events.events()).singleElement().satisfies(ip -> assertThat(ip).startsWith("10.250.77."));
        ContainerRuntimeStatus c1 = status.latest("c1").orElseThrow();
        assertThat(c1.running()).isTrue();
        assertThat(c1.image()).isEqualTo(TestImages.BUSYBOX);
        assertThat(c1.imageRef()).startsWith("sha256:");
        Path log = directory.resolve("kubelet/pods-logs/default_web_uid-web/c1/0.log");
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(log)
                && Files.readString(log, StandardCharsets.UTF_8).contains("stdout F hello from c1"));

        ExecResult hostname = new CriCommandRunner(connection.runtimeService())
                .execSync(c1.id(), List.of("hostname"), Duration.ofSeconds(10));
        assertThat(hostname.exitCode()).isZero();
        assertThat(new String(hostname.stdout(), StandardCharsets.UTF_8).trim()).isEqualTo("web");

        manager.killPod(pod, status, Duration.ofSeconds(5));
        manager.removePod(manager.podStatus("uid-web", "web", "default"));
        assertThat(connection.runtimeService().listPodSandbox(PodSandboxFilter.getDefaultInstance())).isEmpty();
        assertThat(connection.runtimeService().listContainers(ContainerFilter.getDefaultInstance())).isEmpty();
    }

    @Test
    void aRestartedKubeletAdoptsTheRunningPodWithoutRestartingIt() {
        Pod pod = busyboxPod("adopt", "sleep", "3600");
        sync(manager(), pod);
        String containerId = manager().podStatus("uid-adopt", "adopt", "default").latest("c1").orElseThrow().id();

        KubeRuntimeManager restarted = manager();
        assertThat(restarted.listPods()).containsKey("uid-adopt");
        SyncOutcome outcome = sync(restarted, pod);

        assertThat(outcome.started()).isEmpty();
        PodRuntimeStatus status = restarted.podStatus("uid-adopt", "adopt", "default");
        assertThat(status.latest("c1").orElseThrow().id()).isEqualTo(containerId);
        assertThat(status.latest("c1").orElseThrow().running()).isTrue();
    }

    @Test
    void aCommandThatDoesNotExistIsRunContainerErrorWithTheRuntimesMessage() {
        SyncOutcome outcome = sync(manager(), busyboxPod("broken", "/no/such/command"));

        assertThat(outcome.waiting().get("c1")).satisfies(waiting -> {
            assertThat(waiting.reason()).isEqualTo("RunContainerError");
            // The gRPC status's description, without "rpc error: code = …", as upstream shows it.
            assertThat(waiting.message()).startsWith("failed to create containerd task")
                    .contains("/no/such/command");
        });
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
