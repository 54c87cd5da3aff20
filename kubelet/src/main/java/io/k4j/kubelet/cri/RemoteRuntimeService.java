package io.k4j.kubelet.cri;

import static io.k4j.kubelet.cri.GrpcCalls.call;
import static io.k4j.kubelet.cri.GrpcCalls.run;
import static java.util.Objects.requireNonNull;

import io.grpc.Channel;
import io.k4j.kubelet.cri.v1.AttachRequest;
import io.k4j.kubelet.cri.v1.AttachResponse;
import io.k4j.kubelet.cri.v1.Container;
import io.k4j.kubelet.cri.v1.ContainerConfig;
import io.k4j.kubelet.cri.v1.ContainerFilter;
import io.k4j.kubelet.cri.v1.ContainerStats;
import io.k4j.kubelet.cri.v1.ContainerStatsFilter;
import io.k4j.kubelet.cri.v1.ContainerStatsRequest;
import io.k4j.kubelet.cri.v1.ContainerStatusRequest;
import io.k4j.kubelet.cri.v1.ContainerStatusResponse;
import io.k4j.kubelet.cri.v1.CreateContainerRequest;
import io.k4j.kubelet.cri.v1.ExecRequest;
import io.k4j.kubelet.cri.v1.ExecResponse;
import io.k4j.kubelet.cri.v1.ExecSyncRequest;
import io.k4j.kubelet.cri.v1.ExecSyncResponse;
import io.k4j.kubelet.cri.v1.LinuxContainerResources;
import io.k4j.kubelet.cri.v1.ListContainerStatsRequest;
import io.k4j.kubelet.cri.v1.ListContainersRequest;
import io.k4j.kubelet.cri.v1.ListPodSandboxRequest;
import io.k4j.kubelet.cri.v1.PodSandbox;
import io.k4j.kubelet.cri.v1.PodSandboxConfig;
import io.k4j.kubelet.cri.v1.PodSandboxFilter;
import io.k4j.kubelet.cri.v1.PodSandboxStats;
import io.k4j.kubelet.cri.v1.PodSandboxStatsRequest;
import io.k4j.kubelet.cri.v1.PodSandboxStatusRequest;
import io.k4j.kubelet.cri.v1.PodSandboxStatusResponse;
import io.k4j.kubelet.cri.v1.PortForwardRequest;
import io.k4j.kubelet.cri.v1.PortForwardResponse;
import io.k4j.kubelet.cri.v1.RemoveContainerRequest;
import io.k4j.kubelet.cri.v1.RemovePodSandboxRequest;
import io.k4j.kubelet.cri.v1.ReopenContainerLogRequest;
import io.k4j.kubelet.cri.v1.RunPodSandboxRequest;
import io.k4j.kubelet.cri.v1.RuntimeConfig;
import io.k4j.kubelet.cri.v1.RuntimeServiceGrpc;
import io.k4j.kubelet.cri.v1.StartContainerRequest;
import io.k4j.kubelet.cri.v1.StatusRequest;
import io.k4j.kubelet.cri.v1.StatusResponse;
import io.k4j.kubelet.cri.v1.StopContainerRequest;
import io.k4j.kubelet.cri.v1.StopPodSandboxRequest;
import io.k4j.kubelet.cri.v1.UpdateContainerResourcesRequest;
import io.k4j.kubelet.cri.v1.UpdateRuntimeConfigRequest;
import io.k4j.kubelet.cri.v1.VersionRequest;
import io.k4j.kubelet.cri.v1.VersionResponse;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** {@link RuntimeService} over a gRPC channel; every call carries a deadline. Thread-safe. */
final class RemoteRuntimeService implements RuntimeService {
    private final RuntimeServiceGrpc.RuntimeServiceBlockingStub stub;
    private final CriTimeouts timeouts;

    RemoteRuntimeService(Channel channel, CriTimeouts timeouts) {
        this.stub = RuntimeServiceGrpc.newBlockingStub(requireNonNull(channel, "channel is null"));
        this.timeouts = requireNonNull(timeouts, "timeouts is null");
    }

    private RuntimeServiceGrpc.RuntimeServiceBlockingStub stub() {
        return stub(Duration.ZERO);
    }

    /** A stub whose deadline is the request timeout plus {@code wait} (a stop grace period, an exec timeout). */
    private RuntimeServiceGrpc.RuntimeServiceBlockingStub stub(Duration wait) {
        return stub.withDeadlineAfter(timeouts.request().plus(wait).toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public VersionResponse version(String apiVersion) {
        return call(() -> stub().version(VersionRequest.newBuilder().setVersion(apiVersion).build()));
    }

    @Override
    public String runPodSandbox(PodSandboxConfig config, String runtimeHandler) {
        RunPodSandboxRequest request = RunPodSandboxRequest.newBuilder()
                .setConfig(config)
                .setRuntimeHandler(runtimeHandler)
                .build();
        return call(() -> stub().runPodSandbox(request)).getPodSandboxId();
    }

    @Override
    public void stopPodSandbox(String podSandboxId) {
        run(() -> stub().stopPodSandbox(StopPodSandboxRequest.newBuilder().setPodSandboxId(podSandboxId).build()));
    }

    @Override
    public void removePodSandbox(String podSandboxId) {
        run(() -> stub().removePodSandbox(
                RemovePodSandboxRequest.newBuilder().setPodSandboxId(podSandboxId).build()));
    }

    @Override
    public PodSandboxStatusResponse podSandboxStatus(String podSandboxId, boolean verbose) {
        return call(() -> stub().podSandboxStatus(PodSandboxStatusRequest.newBuilder()
                .setPodSandboxId(podSandboxId)
                .setVerbose(verbose)
                .build()));
    }

    @Override
    public List<PodSandbox> listPodSandbox(PodSandboxFilter filter) {
        return call(() -> stub().listPodSandbox(ListPodSandboxRequest.newBuilder().setFilter(filter).build()))
                .getItemsList();
    }

    @Override
    public String createContainer(String podSandboxId, ContainerConfig config, PodSandboxConfig sandboxConfig) {
        CreateContainerRequest request = CreateContainerRequest.newBuilder()
                .setPodSandboxId(podSandboxId)
                .setConfig(config)
                .setSandboxConfig(sandboxConfig)
                .build();
        return call(() -> stub().createContainer(request)).getContainerId();
    }

    @Override
    public void startContainer(String containerId) {
        run(() -> stub().startContainer(StartContainerRequest.newBuilder().setContainerId(containerId).build()));
    }

    @Override
    public void stopContainer(String containerId, long timeoutSeconds) {
        StopContainerRequest request = StopContainerRequest.newBuilder()
                .setContainerId(containerId)
                .setTimeout(timeoutSeconds)
                .build();
        run(() -> stub(Duration.ofSeconds(Math.max(0, timeoutSeconds))).stopContainer(request));
    }

    @Override
    public void removeContainer(String containerId) {
        run(() -> stub().removeContainer(RemoveContainerRequest.newBuilder().setContainerId(containerId).build()));
    }

    @Override
    public List<Container> listContainers(ContainerFilter filter) {
        return call(() -> stub().listContainers(ListContainersRequest.newBuilder().setFilter(filter).build()))
                .getContainersList();
    }

    @Override
    public ContainerStatusResponse containerStatus(String containerId, boolean verbose) {
        return call(() -> stub().containerStatus(ContainerStatusRequest.newBuilder()
                .setContainerId(containerId)
                .setVerbose(verbose)
                .build()));
    }

    @Override
    public void updateContainerResources(String containerId, LinuxContainerResources resources) {
        run(() -> stub().updateContainerResources(UpdateContainerResourcesRequest.newBuilder()
                .setContainerId(containerId)
                .setLinux(resources)
                .build()));
    }

    @Override
    public void reopenContainerLog(String containerId) {
        run(() -> stub().reopenContainerLog(
                ReopenContainerLogRequest.newBuilder().setContainerId(containerId).build()));
    }

    @Override
    public ExecSyncResponse execSync(String containerId, List<String> command, Duration timeout) {
        ExecSyncRequest request = ExecSyncRequest.newBuilder()
                .setContainerId(containerId)
                .addAllCmd(command)
                .setTimeout(timeout.toSeconds())
                .build();
        return call(() -> stub(timeout).execSync(request));
    }

    @Override
    public ExecResponse exec(ExecRequest request) {
        return call(() -> stub().exec(request));
    }

    @Override
    public AttachResponse attach(AttachRequest request) {
        return call(() -> stub().attach(request));
    }

    @Override
    public PortForwardResponse portForward(PortForwardRequest request) {
        return call(() -> stub().portForward(request));
    }

    @Override
    public ContainerStats containerStats(String containerId) {
        return call(() -> stub().containerStats(ContainerStatsRequest.newBuilder().setContainerId(containerId).build()))
                .getStats();
    }

    @Override
    public List<ContainerStats> listContainerStats(ContainerStatsFilter filter) {
        return call(() -> stub().listContainerStats(ListContainerStatsRequest.newBuilder().setFilter(filter).build()))
                .getStatsList();
    }

    @Override
    public PodSandboxStats podSandboxStats(String podSandboxId) {
        return call(() -> stub().podSandboxStats(
                PodSandboxStatsRequest.newBuilder().setPodSandboxId(podSandboxId).build())).getStats();
    }

    @Override
    public void updateRuntimeConfig(RuntimeConfig runtimeConfig) {
        run(() -> stub().updateRuntimeConfig(
                UpdateRuntimeConfigRequest.newBuilder().setRuntimeConfig(runtimeConfig).build()));
    }

    @Override
    public StatusResponse status(boolean verbose) {
        return call(() -> stub().status(StatusRequest.newBuilder().setVerbose(verbose).build()));
    }
}
