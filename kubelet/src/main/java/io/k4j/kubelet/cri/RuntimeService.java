package io.k4j.kubelet.cri;

import io.k4j.kubelet.cri.v1.AttachRequest;
import io.k4j.kubelet.cri.v1.AttachResponse;
import io.k4j.kubelet.cri.v1.Container;
import io.k4j.kubelet.cri.v1.ContainerConfig;
import io.k4j.kubelet.cri.v1.ContainerFilter;
import io.k4j.kubelet.cri.v1.ContainerStats;
import io.k4j.kubelet.cri.v1.ContainerStatsFilter;
import io.k4j.kubelet.cri.v1.ContainerStatusResponse;
import io.k4j.kubelet.cri.v1.ExecRequest;
import io.k4j.kubelet.cri.v1.ExecResponse;
import io.k4j.kubelet.cri.v1.ExecSyncResponse;
import io.k4j.kubelet.cri.v1.LinuxContainerResources;
import io.k4j.kubelet.cri.v1.PodSandbox;
import io.k4j.kubelet.cri.v1.PodSandboxConfig;
import io.k4j.kubelet.cri.v1.PodSandboxFilter;
import io.k4j.kubelet.cri.v1.PodSandboxStats;
import io.k4j.kubelet.cri.v1.PodSandboxStatusResponse;
import io.k4j.kubelet.cri.v1.PortForwardRequest;
import io.k4j.kubelet.cri.v1.PortForwardResponse;
import io.k4j.kubelet.cri.v1.RuntimeConfig;
import io.k4j.kubelet.cri.v1.StatusResponse;
import io.k4j.kubelet.cri.v1.VersionResponse;

import java.time.Duration;
import java.util.List;

/**
 * The CRI runtime service: pod sandboxes, containers, streaming endpoints, stats and runtime status, as upstream's
 * {@code RuntimeService} gRPC service. Every method throws {@link CriException} when the runtime answers with an
 * error or does not answer within the call's deadline. Implementations are thread-safe.
 */
public interface RuntimeService {
    /** The CRI version this client speaks, sent in {@link #version(String)}. */
    String API_VERSION = "v1";

    /** The runtime's name and version, and the CRI version it speaks. */
    VersionResponse version(String apiVersion);

    /** Creates and starts a pod sandbox (network included) and returns its id; the sandbox is ready on return. */
    String runPodSandbox(PodSandboxConfig config, String runtimeHandler);

    /** Stops every process of the sandbox and frees its network (the pod IP); idempotent. */
    void stopPodSandbox(String podSandboxId);

    /** Removes the sandbox and its containers; idempotent. */
    void removePodSandbox(String podSandboxId);

    /** The sandbox's status; fails with {@code NotFound} when it does not exist. */
    PodSandboxStatusResponse podSandboxStatus(String podSandboxId, boolean verbose);

    /** The sandboxes matching the filter (an empty filter matches all). */
    List<PodSandbox> listPodSandbox(PodSandboxFilter filter);

    /** Creates a container in a sandbox and returns its id. */
    String createContainer(String podSandboxId, ContainerConfig config, PodSandboxConfig sandboxConfig);

    void startContainer(String containerId);

    /**
     * Stops a container: the stop signal first, then SIGKILL after {@code timeoutSeconds} (0 kills at once).
     * Idempotent. The call's deadline is extended by the timeout.
     */
    void stopContainer(String containerId, long timeoutSeconds);

    /** Removes a container, killing it if it still runs; idempotent. */
    void removeContainer(String containerId);

    /** The containers matching the filter (an empty filter matches all). */
    List<Container> listContainers(ContainerFilter filter);

    /** The container's status; fails with {@code NotFound} when it does not exist. */
    ContainerStatusResponse containerStatus(String containerId, boolean verbose);

    void updateContainerResources(String containerId, LinuxContainerResources resources);

    /** Asks the runtime to reopen the container's log file (after the kubelet rotated it). */
    void reopenContainerLog(String containerId);

    /**
     * Runs a command in a container and waits for it. A {@code timeout} of zero waits for ever (bounded only by
     * the call's deadline, which is extended by the timeout).
     */
    ExecSyncResponse execSync(String containerId, List<String> command, Duration timeout);

    /** Prepares a streaming exec session and returns the URL of the runtime's streaming server. */
    ExecResponse exec(ExecRequest request);

    /** Prepares a streaming attach session and returns the URL of the runtime's streaming server. */
    AttachResponse attach(AttachRequest request);

    /** Prepares a streaming port-forward session and returns the URL of the runtime's streaming server. */
    PortForwardResponse portForward(PortForwardRequest request);

    ContainerStats containerStats(String containerId);

    List<ContainerStats> listContainerStats(ContainerStatsFilter filter);

    PodSandboxStats podSandboxStats(String podSandboxId);

    /** Tells the runtime about configuration it needs from the kubelet (the node's pod CIDR). */
    void updateRuntimeConfig(RuntimeConfig runtimeConfig);

    /** The runtime's conditions ({@code RuntimeReady}, {@code NetworkReady}). */
    StatusResponse status(boolean verbose);
}
