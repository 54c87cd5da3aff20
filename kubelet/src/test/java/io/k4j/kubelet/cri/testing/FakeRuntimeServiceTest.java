package io.k4j.kubelet.cri.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.k4j.kubelet.cri.CriException;
import io.k4j.kubelet.cri.v1.AuthConfig;
import io.k4j.kubelet.cri.v1.ContainerConfig;
import io.k4j.kubelet.cri.v1.ContainerFilter;
import io.k4j.kubelet.cri.v1.ContainerMetadata;
import io.k4j.kubelet.cri.v1.ContainerState;
import io.k4j.kubelet.cri.v1.ImageSpec;
import io.k4j.kubelet.cri.v1.PodSandboxConfig;
import io.k4j.kubelet.cri.v1.PodSandboxFilter;
import io.k4j.kubelet.cri.v1.PodSandboxMetadata;
import io.k4j.kubelet.cri.v1.PodSandboxState;
import org.junit.jupiter.api.Test;

class FakeRuntimeServiceTest {
    private final FakeRuntimeService runtime = new FakeRuntimeService();
    private final PodSandboxConfig sandboxConfig = PodSandboxConfig.newBuilder()
            .setMetadata(PodSandboxMetadata.newBuilder().setName("web").setNamespace("default").setUid("u1"))
            .putLabels("io.kubernetes.pod.uid", "u1")
            .build();

    @Test
    void runsASandboxAndAContainer() {
        runtime.addPullableImage("busybox");
        String imageRef = runtime.pullImage(ImageSpec.newBuilder().setImage("busybox").build(),
                AuthConfig.getDefaultInstance(), sandboxConfig);
        String sandboxId = runtime.runPodSandbox(sandboxConfig, "");
        String containerId = runtime.createContainer(sandboxId, containerConfig("docker.io/library/busybox:latest"),
                sandboxConfig);
        runtime.startContainer(containerId);

        assertThat(runtime.containerStatus(containerId, false).getStatus().getState())
                .isEqualTo(ContainerState.CONTAINER_RUNNING);
        assertThat(runtime.containerStatus(containerId, false).getStatus().getImageRef()).isEqualTo(imageRef);
        assertThat(runtime.podSandboxStatus(sandboxId, false).getStatus().getNetwork().getIp()).startsWith("10.88.0.");
        assertThat(runtime.listPodSandbox(PodSandboxFilter.newBuilder()
                .putLabelSelector("io.kubernetes.pod.uid", "u1").build())).hasSize(1);
        assertThat(runtime.listContainers(ContainerFilter.newBuilder().setPodSandboxId(sandboxId).build())).hasSize(1);

        runtime.exitContainer(containerId, 3, "Error");
        assertThat(runtime.containerStatus(containerId, false).getStatus().getExitCode()).isEqualTo(3);

        runtime.stopPodSandbox(sandboxId);
        assertThat(runtime.podSandboxStatus(sandboxId, false).getStatus().getState())
                .isEqualTo(PodSandboxState.SANDBOX_NOTREADY);
        runtime.removePodSandbox(sandboxId);
        assertThat(runtime.containers()).isEmpty();
        assertThat(runtime.calls()).containsSubsequence("PullImage", "RunPodSandbox", "CreateContainer",
                "StartContainer", "StopPodSandbox", "RemovePodSandbox");
    }

    @Test
    void unknownImagesFailToPull() {
        assertThatThrownBy(() -> runtime.pullImage(ImageSpec.newBuilder().setImage("nosuch").build(),
                AuthConfig.getDefaultInstance(), sandboxConfig))
                .isInstanceOfSatisfying(CriException.class, error -> assertThat(error.isNotFound()).isTrue())
                .hasMessageContaining("docker.io/library/nosuch:latest");
    }

    @Test
    void injectedErrorsFailTheNextCallOnly() {
        runtime.failNext("RunPodSandbox", new CriException(CriException.Code.UNKNOWN, "cni failed"));

        assertThatThrownBy(() -> runtime.runPodSandbox(sandboxConfig, "")).hasMessageContaining("cni failed");
        assertThat(runtime.runPodSandbox(sandboxConfig, "")).isNotEmpty();
    }

    @Test
    void normalizesReferencesAsDocker() {
        assertThat(FakeRuntimeService.normalize("busybox")).isEqualTo("docker.io/library/busybox:latest");
        assertThat(FakeRuntimeService.normalize("nginx:1.25")).isEqualTo("docker.io/library/nginx:1.25");
        assertThat(FakeRuntimeService.normalize("example/app")).isEqualTo("docker.io/example/app:latest");
        assertThat(FakeRuntimeService.normalize("127.0.0.1:5000/app:v1")).isEqualTo("127.0.0.1:5000/app:v1");
    }

    private static ContainerConfig containerConfig(String image) {
        return ContainerConfig.newBuilder()
                .setMetadata(ContainerMetadata.newBuilder().setName("c1"))
                .setImage(ImageSpec.newBuilder().setImage(image))
                .build();
    }
}
