package io.k4j.kubelet.cri.testing;

import static java.util.Objects.requireNonNull;

import io.k4j.kubelet.cri.CriException;
import io.k4j.kubelet.cri.ImageService;
import io.k4j.kubelet.cri.RuntimeService;
import io.k4j.kubelet.cri.v1.AttachRequest;
import io.k4j.kubelet.cri.v1.AttachResponse;
import io.k4j.kubelet.cri.v1.AuthConfig;
import io.k4j.kubelet.cri.v1.Container;
import io.k4j.kubelet.cri.v1.ContainerConfig;
import io.k4j.kubelet.cri.v1.ContainerFilter;
import io.k4j.kubelet.cri.v1.ContainerState;
import io.k4j.kubelet.cri.v1.ContainerStats;
import io.k4j.kubelet.cri.v1.ContainerStatsFilter;
import io.k4j.kubelet.cri.v1.ContainerStatus;
import io.k4j.kubelet.cri.v1.ContainerStatusResponse;
import io.k4j.kubelet.cri.v1.ExecRequest;
import io.k4j.kubelet.cri.v1.ExecResponse;
import io.k4j.kubelet.cri.v1.ExecSyncResponse;
import io.k4j.kubelet.cri.v1.Image;
import io.k4j.kubelet.cri.v1.ImageFilter;
import io.k4j.kubelet.cri.v1.ImageFsInfoResponse;
import io.k4j.kubelet.cri.v1.ImageSpec;
import io.k4j.kubelet.cri.v1.LinuxContainerResources;
import io.k4j.kubelet.cri.v1.PodSandbox;
import io.k4j.kubelet.cri.v1.PodSandboxConfig;
import io.k4j.kubelet.cri.v1.PodSandboxFilter;
import io.k4j.kubelet.cri.v1.PodSandboxNetworkStatus;
import io.k4j.kubelet.cri.v1.PodSandboxState;
import io.k4j.kubelet.cri.v1.PodSandboxStats;
import io.k4j.kubelet.cri.v1.PodSandboxStatus;
import io.k4j.kubelet.cri.v1.PodSandboxStatusResponse;
import io.k4j.kubelet.cri.v1.PortForwardRequest;
import io.k4j.kubelet.cri.v1.PortForwardResponse;
import io.k4j.kubelet.cri.v1.RuntimeCondition;
import io.k4j.kubelet.cri.v1.RuntimeConfig;
import io.k4j.kubelet.cri.v1.RuntimeStatus;
import io.k4j.kubelet.cri.v1.StatusResponse;
import io.k4j.kubelet.cri.v1.VersionResponse;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * An in-memory container runtime for unit tests, implementing both CRI services with containerd's observable
 * behaviour: sandboxes get an IP from 10.88.0.0/16, containers go created ▶ running ▶ exited, images must be
 * pulled (or preloaded) before a container can use them, unknown images fail to pull with {@code NotFound}.
 * Tests drive it with {@link #exitContainer}, {@link #failNext}, {@link #addPullableImage} and read back
 * {@link #calls()}. Thread-safe (every method is synchronized).
 */
public final class FakeRuntimeService implements RuntimeService, ImageService {
    private final InstantSource clock;
    private final Map<String, SandboxRecord> sandboxes = new LinkedHashMap<>();
    private final Map<String, ContainerRecord> containers = new LinkedHashMap<>();
    private final Map<String, Image> images = new LinkedHashMap<>();
    private final Map<String, String> pullableImages = new HashMap<>();
    private final Map<String, Deque<CriException>> injectedErrors = new HashMap<>();
    private final List<String> calls = new ArrayList<>();
    private BiFunction<String, List<String>, ExecSyncResponse> execSyncHandler =
            (containerId, command) -> ExecSyncResponse.getDefaultInstance();
    private boolean runtimeReady = true;
    private boolean networkReady = true;
    private long nextId = 1;
    private int nextIpSuffix = 2;
    private String podCidr = "";

    public FakeRuntimeService(InstantSource clock) {
        this.clock = requireNonNull(clock, "clock is null");
    }

    public FakeRuntimeService() {
        this(InstantSource.system());
    }

    // ---- test controls --------------------------------------------------------------------------------------

    /** Makes {@code image} pullable (by tag); a pull then stores it. */
    public synchronized void addPullableImage(String image) {
        String reference = normalize(image);
        pullableImages.put(reference, "sha256:" + sha(reference));
    }

    /** Stores {@code image} as if it had been pulled before. */
    public synchronized void addImage(String image) {
        addPullableImage(image);
        String reference = normalize(image);
        storeImage(reference, pullableImages.get(reference));
    }

    /** The next call of {@code method} (the CRI RPC name, e.g. {@code "CreateContainer"}) fails with {@code error}. */
    public synchronized void failNext(String method, CriException error) {
        injectedErrors.computeIfAbsent(method, key -> new ArrayDeque<>()).add(requireNonNull(error, "error is null"));
    }

    /** The container's process exits with {@code exitCode}. */
    public synchronized void exitContainer(String containerId, int exitCode, String reason) {
        ContainerRecord container = existingContainer(containerId);
        container.state = ContainerState.CONTAINER_EXITED;
        container.exitCode = exitCode;
        container.reason = reason;
        container.finishedAt = clock.instant();
    }

    /** What {@link #execSync} answers. */
    public synchronized void setExecSyncHandler(BiFunction<String, List<String>, ExecSyncResponse> handler) {
        this.execSyncHandler = requireNonNull(handler, "handler is null");
    }

    public synchronized void setRuntimeReady(boolean runtimeReady) {
        this.runtimeReady = runtimeReady;
    }

    public synchronized void setNetworkReady(boolean networkReady) {
        this.networkReady = networkReady;
    }

    /** The RPC names called so far, in order. */
    public synchronized List<String> calls() {
        return List.copyOf(calls);
    }

    public synchronized void clearCalls() {
        calls.clear();
    }

    /** Every sandbox (ready or not) the fake holds. */
    public synchronized List<PodSandboxStatus> sandboxes() {
        return sandboxes.values().stream().map(SandboxRecord::status).toList();
    }

    /** Every container the fake holds. */
    public synchronized List<ContainerStatus> containers() {
        return containers.values().stream().map(ContainerRecord::status).toList();
    }

    /** The config a container was created with. */
    public synchronized ContainerConfig containerConfig(String containerId) {
        return existingContainer(containerId).config;
    }

    /** The config a sandbox was created with. */
    public synchronized PodSandboxConfig sandboxConfig(String podSandboxId) {
        return existingSandbox(podSandboxId).config;
    }

    /** The grace period (seconds) of the last StopContainer of {@code containerId}, -1 if never stopped. */
    public synchronized long lastStopTimeout(String containerId) {
        return existingContainer(containerId).lastStopTimeout;
    }

    /** The pod CIDR the kubelet sent with UpdateRuntimeConfig. */
    public synchronized String podCidr() {
        return podCidr;
    }

    // ---- RuntimeService ---------------------------------------------------------------------------------------

    @Override
    public synchronized VersionResponse version(String apiVersion) {
        record("Version");
        return VersionResponse.newBuilder()
                .setVersion("0.1.0")
                .setRuntimeName("fake")
                .setRuntimeVersion("1.6.20")
                .setRuntimeApiVersion("v1")
                .build();
    }

    @Override
    public synchronized String runPodSandbox(PodSandboxConfig config, String runtimeHandler) {
        record("RunPodSandbox");
        String id = newId("sandbox");
        sandboxes.put(id, new SandboxRecord(id, config, "10.88.0." + nextIpSuffix++, clock.instant().plusNanos(nextId)));
        return id;
    }

    @Override
    public synchronized void stopPodSandbox(String podSandboxId) {
        record("StopPodSandbox");
        SandboxRecord sandbox = sandboxes.get(podSandboxId);
        if (sandbox == null) {
            return;
        }
        sandbox.state = PodSandboxState.SANDBOX_NOTREADY;
        sandbox.ip = "";
        for (ContainerRecord container : containers.values()) {
            if (container.podSandboxId.equals(podSandboxId) && container.state == ContainerState.CONTAINER_RUNNING) {
                container.state = ContainerState.CONTAINER_EXITED;
                container.exitCode = 137;
                container.reason = "Error";
                container.finishedAt = clock.instant();
            }
        }
    }

    @Override
    public synchronized void removePodSandbox(String podSandboxId) {
        record("RemovePodSandbox");
        if (sandboxes.remove(podSandboxId) != null) {
            containers.values().removeIf(container -> container.podSandboxId.equals(podSandboxId));
        }
    }

    @Override
    public synchronized PodSandboxStatusResponse podSandboxStatus(String podSandboxId, boolean verbose) {
        record("PodSandboxStatus");
        return PodSandboxStatusResponse.newBuilder().setStatus(existingSandbox(podSandboxId).status()).build();
    }

    @Override
    public synchronized List<PodSandbox> listPodSandbox(PodSandboxFilter filter) {
        record("ListPodSandbox");
        List<PodSandbox> result = new ArrayList<>();
        for (SandboxRecord sandbox : sandboxes.values()) {
            boolean matches = (filter.getId().isEmpty() || filter.getId().equals(sandbox.id))
                    && (!filter.hasState() || filter.getState().getState() == sandbox.state)
                    && sandbox.config.getLabelsMap().entrySet().containsAll(filter.getLabelSelectorMap().entrySet());
            if (matches) {
                PodSandboxStatus status = sandbox.status();
                result.add(PodSandbox.newBuilder()
                        .setId(status.getId())
                        .setMetadata(status.getMetadata())
                        .setState(status.getState())
                        .setCreatedAt(status.getCreatedAt())
                        .putAllLabels(status.getLabelsMap())
                        .putAllAnnotations(status.getAnnotationsMap())
                        .build());
            }
        }
        return result;
    }

    @Override
    public synchronized String createContainer(String podSandboxId, ContainerConfig config,
            PodSandboxConfig sandboxConfig) {
        record("CreateContainer");
        SandboxRecord sandbox = existingSandbox(podSandboxId);
        if (sandbox.state != PodSandboxState.SANDBOX_READY) {
            throw new CriException(CriException.Code.UNKNOWN, "sandbox container \"" + podSandboxId
                    + "\" is not running");
        }
        Image image = findImage(config.getImage().getImage()).orElseThrow(() -> new CriException(
                CriException.Code.NOT_FOUND, "failed to get image \"" + config.getImage().getImage() + "\""));
        String id = newId("container");
        // The sequence number keeps creation order visible when the test clock stands still.
        containers.put(id, new ContainerRecord(id, podSandboxId, config, image, clock.instant().plusNanos(nextId)));
        return id;
    }

    @Override
    public synchronized void startContainer(String containerId) {
        record("StartContainer");
        ContainerRecord container = existingContainer(containerId);
        if (container.state != ContainerState.CONTAINER_CREATED) {
            throw new CriException(CriException.Code.UNKNOWN, "container " + containerId + " is in "
                    + container.state + " state");
        }
        container.state = ContainerState.CONTAINER_RUNNING;
        container.startedAt = clock.instant();
    }

    @Override
    public synchronized void stopContainer(String containerId, long timeoutSeconds) {
        record("StopContainer");
        ContainerRecord container = containers.get(containerId);
        if (container == null) {
            throw new CriException(CriException.Code.NOT_FOUND, "an error occurred when try to find container \""
                    + containerId + "\": not found");
        }
        container.lastStopTimeout = timeoutSeconds;
        if (container.state == ContainerState.CONTAINER_RUNNING) {
            container.state = ContainerState.CONTAINER_EXITED;
            container.exitCode = 137;
            container.reason = "Error";
            container.finishedAt = clock.instant();
        }
    }

    @Override
    public synchronized void removeContainer(String containerId) {
        record("RemoveContainer");
        containers.remove(containerId);
    }

    @Override
    public synchronized List<Container> listContainers(ContainerFilter filter) {
        record("ListContainers");
        List<Container> result = new ArrayList<>();
        for (ContainerRecord container : containers.values()) {
            boolean matches = (filter.getId().isEmpty() || filter.getId().equals(container.id))
                    && (filter.getPodSandboxId().isEmpty() || filter.getPodSandboxId().equals(container.podSandboxId))
                    && (!filter.hasState() || filter.getState().getState() == container.state)
                    && container.config.getLabelsMap().entrySet()
                            .containsAll(filter.getLabelSelectorMap().entrySet());
            if (matches) {
                ContainerStatus status = container.status();
                result.add(Container.newBuilder()
                        .setId(container.id)
                        .setPodSandboxId(container.podSandboxId)
                        .setMetadata(status.getMetadata())
                        .setImage(status.getImage())
                        .setImageRef(status.getImageRef())
                        .setImageId(status.getImageId())
                        .setState(status.getState())
                        .setCreatedAt(status.getCreatedAt())
                        .putAllLabels(status.getLabelsMap())
                        .putAllAnnotations(status.getAnnotationsMap())
                        .build());
            }
        }
        return result;
    }

    @Override
    public synchronized ContainerStatusResponse containerStatus(String containerId, boolean verbose) {
        record("ContainerStatus");
        return ContainerStatusResponse.newBuilder().setStatus(existingContainer(containerId).status()).build();
    }

    @Override
    public synchronized void updateContainerResources(String containerId, LinuxContainerResources resources) {
        record("UpdateContainerResources");
        existingContainer(containerId);
    }

    @Override
    public synchronized void reopenContainerLog(String containerId) {
        record("ReopenContainerLog");
        existingContainer(containerId);
    }

    @Override
    public synchronized ExecSyncResponse execSync(String containerId, List<String> command, Duration timeout) {
        record("ExecSync");
        ContainerRecord container = existingContainer(containerId);
        if (container.state != ContainerState.CONTAINER_RUNNING) {
            throw new CriException(CriException.Code.UNKNOWN, "container is in " + container.state + " state");
        }
        return execSyncHandler.apply(containerId, List.copyOf(command));
    }

    @Override
    public synchronized ExecResponse exec(ExecRequest request) {
        record("Exec");
        existingContainer(request.getContainerId());
        return ExecResponse.newBuilder().setUrl("http://127.0.0.1:0/exec/" + request.getContainerId()).build();
    }

    @Override
    public synchronized AttachResponse attach(AttachRequest request) {
        record("Attach");
        existingContainer(request.getContainerId());
        return AttachResponse.newBuilder().setUrl("http://127.0.0.1:0/attach/" + request.getContainerId()).build();
    }

    @Override
    public synchronized PortForwardResponse portForward(PortForwardRequest request) {
        record("PortForward");
        existingSandbox(request.getPodSandboxId());
        return PortForwardResponse.newBuilder()
                .setUrl("http://127.0.0.1:0/portforward/" + request.getPodSandboxId())
                .build();
    }

    @Override
    public synchronized ContainerStats containerStats(String containerId) {
        record("ContainerStats");
        existingContainer(containerId);
        return ContainerStats.getDefaultInstance();
    }

    @Override
    public synchronized List<ContainerStats> listContainerStats(ContainerStatsFilter filter) {
        record("ListContainerStats");
        return List.of();
    }

    @Override
    public synchronized PodSandboxStats podSandboxStats(String podSandboxId) {
        record("PodSandboxStats");
        existingSandbox(podSandboxId);
        return PodSandboxStats.getDefaultInstance();
    }

    @Override
    public synchronized void updateRuntimeConfig(RuntimeConfig runtimeConfig) {
        record("UpdateRuntimeConfig");
        podCidr = runtimeConfig.getNetworkConfig().getPodCidr();
    }

    @Override
    public synchronized StatusResponse status(boolean verbose) {
        record("Status");
        return StatusResponse.newBuilder()
                .setStatus(RuntimeStatus.newBuilder()
                        .addConditions(RuntimeCondition.newBuilder().setType("RuntimeReady").setStatus(runtimeReady))
                        .addConditions(RuntimeCondition.newBuilder().setType("NetworkReady").setStatus(networkReady)
                                .setReason(networkReady ? "" : "NetworkPluginNotReady")
                                .setMessage(networkReady ? "" : "Network plugin returns error: cni plugin not initialized")))
                .build();
    }

    // ---- ImageService -----------------------------------------------------------------------------------------

    @Override
    public synchronized List<Image> listImages(ImageFilter filter) {
        record("ListImages");
        if (filter.hasImage() && !filter.getImage().getImage().isEmpty()) {
            return findImage(filter.getImage().getImage()).map(List::of).orElse(List.of());
        }
        return List.copyOf(images.values());
    }

    @Override
    public synchronized Optional<Image> imageStatus(ImageSpec image) {
        record("ImageStatus");
        return findImage(image.getImage());
    }

    @Override
    public synchronized String pullImage(ImageSpec image, AuthConfig auth, PodSandboxConfig sandboxConfig) {
        record("PullImage");
        String reference = normalize(image.getImage());
        String id = pullableImages.get(reference);
        if (id == null) {
            throw new CriException(CriException.Code.NOT_FOUND, "failed to pull and unpack image \"" + reference
                    + "\": failed to resolve reference \"" + reference + "\": " + reference + ": not found");
        }
        storeImage(reference, id);
        return id;
    }

    @Override
    public synchronized void removeImage(ImageSpec image) {
        record("RemoveImage");
        findImage(image.getImage()).ifPresent(found -> images.remove(found.getId()));
    }

    @Override
    public synchronized ImageFsInfoResponse imageFsInfo() {
        record("ImageFsInfo");
        return ImageFsInfoResponse.getDefaultInstance();
    }

    // ---- internals --------------------------------------------------------------------------------------------

    private void record(String method) {
        calls.add(method);
        Deque<CriException> errors = injectedErrors.get(method);
        if (errors != null && !errors.isEmpty()) {
            throw errors.poll();
        }
    }

    private String newId(String kind) {
        return String.format("%s%059d", kind.charAt(0), nextId++);
    }

    private void storeImage(String reference, String id) {
        Image existing = images.get(id);
        Image.Builder builder = existing != null ? existing.toBuilder() : Image.newBuilder().setId(id).setSize(1024);
        if (!builder.getRepoTagsList().contains(reference)) {
            builder.addRepoTags(reference);
        }
        images.put(id, builder.build());
    }

    private Optional<Image> findImage(String image) {
        if (images.containsKey(image)) {
            return Optional.of(images.get(image));
        }
        String reference = normalize(image);
        return images.values().stream().filter(candidate -> candidate.getRepoTagsList().contains(reference)).findFirst();
    }

    private SandboxRecord existingSandbox(String podSandboxId) {
        SandboxRecord sandbox = sandboxes.get(podSandboxId);
        if (sandbox == null) {
            throw new CriException(CriException.Code.NOT_FOUND, "an error occurred when try to find sandbox \""
                    + podSandboxId + "\": not found");
        }
        return sandbox;
    }

    private ContainerRecord existingContainer(String containerId) {
        ContainerRecord container = containers.get(containerId);
        if (container == null) {
            throw new CriException(CriException.Code.NOT_FOUND, "an error occurred when try to find container \""
                    + containerId + "\": not found");
        }
        return container;
    }

    /** Docker's reference normalization: {@code busybox} is {@code docker.io/library/busybox:latest}. */
    public static String normalize(String image) {
        String reference = image;
        int slash = reference.indexOf('/');
        String first = slash < 0 ? "" : reference.substring(0, slash);
        if (slash < 0) {
            reference = "docker.io/library/" + reference;
        }
        else if (!first.contains(".") && !first.contains(":") && !first.equals("localhost")) {
            reference = "docker.io/" + reference;
        }
        String lastComponent = reference.substring(reference.lastIndexOf('/') + 1);
        if (!lastComponent.contains(":") && !reference.contains("@")) {
            reference = reference + ":latest";
        }
        return reference;
    }

    private static String sha(String text) {
        return String.format("%064x", Math.abs((long) text.hashCode()));
    }

    private static long nanos(Instant instant) {
        return instant == null ? 0 : instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
    }

    private final class SandboxRecord {
        final String id;
        final PodSandboxConfig config;
        final Instant createdAt;
        PodSandboxState state = PodSandboxState.SANDBOX_READY;
        String ip;

        SandboxRecord(String id, PodSandboxConfig config, String ip, Instant createdAt) {
            this.id = id;
            this.config = config;
            this.ip = ip;
            this.createdAt = createdAt;
        }

        PodSandboxStatus status() {
            return PodSandboxStatus.newBuilder()
                    .setId(id)
                    .setMetadata(config.getMetadata())
                    .setState(state)
                    .setCreatedAt(nanos(createdAt))
                    .setNetwork(PodSandboxNetworkStatus.newBuilder().setIp(ip))
                    .putAllLabels(config.getLabelsMap())
                    .putAllAnnotations(config.getAnnotationsMap())
                    .build();
        }
    }

    private final class ContainerRecord {
        final String id;
        final String podSandboxId;
        final ContainerConfig config;
        final Image image;
        final Instant createdAt;
        ContainerState state = ContainerState.CONTAINER_CREATED;
        Instant startedAt;
        Instant finishedAt;
        int exitCode;
        String reason = "";
        long lastStopTimeout = -1;

        ContainerRecord(String id, String podSandboxId, ContainerConfig config, Image image, Instant createdAt) {
            this.id = id;
            this.podSandboxId = podSandboxId;
            this.config = config;
            this.image = image;
            this.createdAt = createdAt;
        }

        ContainerStatus status() {
            String logPath = "";
            SandboxRecord sandbox = sandboxes.get(podSandboxId);
            if (sandbox != null && !config.getLogPath().isEmpty()) {
                logPath = sandbox.config.getLogDirectory() + "/" + config.getLogPath();
            }
            return ContainerStatus.newBuilder()
                    .setId(id)
                    .setMetadata(config.getMetadata())
                    .setState(state)
                    .setCreatedAt(nanos(createdAt))
                    .setStartedAt(nanos(startedAt))
                    .setFinishedAt(nanos(finishedAt))
                    .setExitCode(exitCode)
                    .setReason(reason)
                    .setImage(ImageSpec.newBuilder().setImage(image.getRepoTags(0)))
                    .setImageRef(image.getId())
                    .setImageId(image.getId())
                    .putAllLabels(config.getLabelsMap())
                    .putAllAnnotations(config.getAnnotationsMap())
                    .addAllMounts(config.getMountsList())
                    .setLogPath(logPath)
                    .build();
        }
    }
}
