package io.k4j.kubelet.kuberuntime;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.k4j.controllerkit.events.EventRecorder;
import io.k4j.kubelet.KubeletConfig;
import io.k4j.kubelet.cri.CriException;
import io.k4j.kubelet.cri.RuntimeService;
import io.k4j.kubelet.cri.v1.ContainerConfig;
import io.k4j.kubelet.cri.v1.ContainerFilter;
import io.k4j.kubelet.cri.v1.ContainerStatus;
import io.k4j.kubelet.cri.v1.PodSandbox;
import io.k4j.kubelet.cri.v1.PodSandboxConfig;
import io.k4j.kubelet.cri.v1.PodSandboxFilter;
import io.k4j.kubelet.cri.v1.PodSandboxState;
import io.k4j.kubelet.cri.v1.PodSandboxStatus;
import io.k4j.kubelet.env.ContainerEnvironment;
import io.k4j.kubelet.env.CreateContainerConfigException;
import io.k4j.kubelet.env.EnvironmentVariable;
import io.k4j.kubelet.events.ContainerReferences;
import io.k4j.kubelet.env.PodAddresses;
import io.k4j.kubelet.lifecycle.HookRunner;
import io.k4j.kubelet.volume.ContainerMount;
import io.k4j.kubelet.volume.PendingVolumes;
import io.k4j.kubelet.volume.PodVolumes;
import io.k4j.kubelet.volume.VolumeMountException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ExecutionException;

/**
 * Runs pods through CRI as upstream's {@code kubeGenericRuntimeManager}: reads what the runtime has of each pod
 * (by upstream's labels, so a restarted kubelet finds what runs), and syncs a pod to its spec — sandbox, init
 * containers in order, image pulls, containers with CrashLoopBackOff between restarts — or kills it gracefully
 * (preStop, then StopContainer with the grace period, then the sandbox, which frees the IP).
 *
 * <p>Thread-safe; calls for one pod must be serialized by the caller (the pod workers do).
 */
public final class KubeRuntimeManager {
    private static final Logger log = LoggerFactory.getLogger(KubeRuntimeManager.class);
    /** Upstream's minimum grace period left for StopContainer after a preStop hook. */
    private static final Duration MIN_GRACE_AFTER_HOOK = Duration.ofSeconds(2);
    /** Upstream's waiting reasons. */
    public static final String CRASH_LOOP_BACK_OFF = "CrashLoopBackOff";
    public static final String RUN_CONTAINER_ERROR = "RunContainerError";
    public static final String CREATE_CONTAINER_ERROR = "CreateContainerError";

    private final RuntimeService runtime;
    private final ImageManager images;
    private final SandboxConfigs sandboxConfigs;
    private final ContainerEnvironment environment;
    private final HookRunner hooks;
    private final EventRecorder events;
    private final InstantSource clock;
    private final KubeletConfig config;
    private final long memoryCapacity;
    private final List<String> hostIps;
    private final Backoff restartBackoff;
    private final ExecutorService killers = Executors.newVirtualThreadPerTaskExecutor();
    /** Container and sandbox details that cannot change while their state does not: fetched once per state. */
    private final Map<String, ContainerStatus> containerDetails = new ConcurrentHashMap<>();
    /** The status of each ready sandbox, by id (only ready sandboxes are kept, so the id is the key). */
    private final Map<String, PodSandboxStatus> sandboxDetails = new ConcurrentHashMap<>();

    public KubeRuntimeManager(RuntimeService runtime, ImageManager images, ContainerEnvironment environment,
            HookRunner hooks, EventRecorder events, InstantSource clock, KubeletConfig config, long memoryCapacity) {
        this.runtime = requireNonNull(runtime, "runtime is null");
        this.images = requireNonNull(images, "images is null");
        this.environment = requireNonNull(environment, "environment is null");
        this.hooks = requireNonNull(hooks, "hooks is null");
        this.events = requireNonNull(events, "events is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.config = requireNonNull(config, "config is null");
        this.sandboxConfigs = new SandboxConfigs(config);
        this.memoryCapacity = memoryCapacity;
        this.hostIps = config.nodeIps();
        this.restartBackoff = Backoff.containerRestarts(clock);
    }

    // ---- reading the runtime ----------------------------------------------------------------------------------

    /** Every pod the runtime has anything of, by pod UID (what PLEG relists and restart re-adoption reads). */
    public Map<String, PodRuntimeStatus> listPods() {
        return group(runtime.listPodSandbox(PodSandboxFilter.getDefaultInstance()),
                runtime.listContainers(ContainerFilter.getDefaultInstance()));
    }

    /** What the runtime has of one pod. */
    public PodRuntimeStatus podStatus(String uid, String name, String namespace) {
        List<PodSandbox> sandboxes = runtime.listPodSandbox(
                PodSandboxFilter.newBuilder().putLabelSelector(KubeletLabels.POD_UID, uid).build());
        List<io.k4j.kubelet.cri.v1.Container> containers = runtime.listContainers(
                ContainerFilter.newBuilder().putLabelSelector(KubeletLabels.POD_UID, uid).build());
        return group(sandboxes, containers).getOrDefault(uid, PodRuntimeStatus.empty(uid, name, namespace));
    }

    private Map<String, PodRuntimeStatus> group(List<PodSandbox> sandboxes,
            List<io.k4j.kubelet.cri.v1.Container> containers) {
        Map<String, List<SandboxRuntimeStatus>> sandboxesByPod = new HashMap<>();
        Map<String, String[]> identities = new HashMap<>();
        Set<String> liveSandboxes = new HashSet<>();
        for (PodSandbox sandbox : sandboxes) {
            String uid = sandbox.getLabelsOrDefault(KubeletLabels.POD_UID, "");
            if (uid.isEmpty()) {
                continue;
            }
            liveSandboxes.add(sandbox.getId());
            identities.putIfAbsent(uid, new String[] {sandbox.getMetadata().getName(), sandbox.getMetadata().getNamespace()});
            boolean ready = sandbox.getState() == PodSandboxState.SANDBOX_READY;
            List<String> ips = ready ? sandboxIps(sandbox) : List.of();
            sandboxesByPod.computeIfAbsent(uid, key -> new ArrayList<>()).add(new SandboxRuntimeStatus(sandbox.getId(),
                    sandbox.getMetadata().getAttempt(), ready, instant(sandbox.getCreatedAt()), ips));
        }
        sandboxDetails.keySet().retainAll(liveSandboxes);
        Map<String, List<ContainerRuntimeStatus>> containersByPod = new HashMap<>();
        Set<String> liveContainerKeys = new HashSet<>();
        for (io.k4j.kubelet.cri.v1.Container container : containers) {
            String uid = container.getLabelsOrDefault(KubeletLabels.POD_UID, "");
            if (uid.isEmpty()) {
                continue;
            }
            identities.putIfAbsent(uid, new String[] {container.getLabelsOrDefault(KubeletLabels.POD_NAME, ""),
                    container.getLabelsOrDefault(KubeletLabels.POD_NAMESPACE, "")});
            String key = container.getId() + "/" + container.getState();
            liveContainerKeys.add(key);
            ContainerStatus details = containerDetails.get(key);
            if (details == null) {
                try {
                    details = runtime.containerStatus(container.getId(), false).getStatus();
                }
                catch (CriException e) {
                    if (e.isNotFound()) {
                        continue;
                    }
                    throw e;
                }
                if (details.getState() == container.getState()) {
                    containerDetails.put(key, details);
                }
            }
            containersByPod.computeIfAbsent(uid, ignored -> new ArrayList<>()).add(toStatus(container, details));
        }
        containerDetails.keySet().retainAll(liveContainerKeys);
        Map<String, PodRuntimeStatus> pods = new LinkedHashMap<>();
        for (Map.Entry<String, String[]> identity : identities.entrySet()) {
            String uid = identity.getKey();
            pods.put(uid, new PodRuntimeStatus(uid, identity.getValue()[0], identity.getValue()[1],
                    sandboxesByPod.getOrDefault(uid, List.of()), containersByPod.getOrDefault(uid, List.of())));
        }
        return pods;
    }

    private List<String> sandboxIps(PodSandbox sandbox) {
        PodSandboxStatus status = sandboxDetails.get(sandbox.getId());
        if (status == null) {
            try {
                status = runtime.podSandboxStatus(sandbox.getId(), false).getStatus();
            }
            catch (CriException e) {
                return List.of();
            }
            if (status.getState() == PodSandboxState.SANDBOX_READY) {
                sandboxDetails.put(sandbox.getId(), status);
            }
        }
        List<String> ips = new ArrayList<>();
        if (!status.getNetwork().getIp().isEmpty()) {
            ips.add(status.getNetwork().getIp());
        }
        status.getNetwork().getAdditionalIpsList().forEach(ip -> ips.add(ip.getIp()));
        return ips;
    }

    private static ContainerRuntimeStatus toStatus(io.k4j.kubelet.cri.v1.Container container, ContainerStatus details) {
        ContainerRuntimeStatus.State state = switch (details.getState()) {
            case CONTAINER_CREATED -> ContainerRuntimeStatus.State.CREATED;
            case CONTAINER_RUNNING -> ContainerRuntimeStatus.State.RUNNING;
            case CONTAINER_EXITED -> ContainerRuntimeStatus.State.EXITED;
            case CONTAINER_UNKNOWN, UNRECOGNIZED -> ContainerRuntimeStatus.State.UNKNOWN;
        };
        int restartCount = 0;
        try {
            restartCount = Integer.parseInt(details.getAnnotationsOrDefault(KubeletLabels.CONTAINER_RESTART_COUNT, "0"));
        }
        catch (NumberFormatException e) {
            // An instance not made by a kubelet: count it as the first.
        }
        String image = details.getImage().getUserSpecifiedImage().isEmpty() ? details.getImage().getImage()
                : details.getImage().getUserSpecifiedImage();
        return new ContainerRuntimeStatus(
                container.getId(),
                container.getLabelsOrDefault(KubeletLabels.CONTAINER_NAME, container.getMetadata().getName()),
                container.getPodSandboxId(),
                state,
                instant(details.getCreatedAt()),
                details.getStartedAt() > 0 ? Optional.of(instant(details.getStartedAt())) : Optional.empty(),
                details.getFinishedAt() > 0 ? Optional.of(instant(details.getFinishedAt())) : Optional.empty(),
                details.getExitCode(),
                details.getReason(),
                details.getMessage(),
                image,
                details.getImageRef(),
                details.getAnnotationsOrDefault(KubeletLabels.CONTAINER_HASH, ""),
                restartCount,
                "true".equals(details.getAnnotationsOrDefault(KubeletLabels.CONTAINER_IS_INIT, "false")));
    }

    private static Instant instant(long nanos) {
        return Instant.ofEpochSecond(nanos / 1_000_000_000L, nanos % 1_000_000_000L);
    }

    // ---- syncing ------------------------------------------------------------------------------------------------

    /**
     * Brings the pod's runtime state towards its spec, as upstream's {@code SyncPod}.
     *
     * @param volumes the pod's volumes, which the caller sets up beside this sync: containers start only once they
     *     are, and none starts when they failed (the caller reports that)
     * @param unhealthy container ids whose liveness or startup probe failed
     */
    public SyncOutcome syncPod(Pod pod, PodRuntimeStatus status, PendingVolumes volumes, Set<String> unhealthy) {
        PodActions actions = PodActions.compute(pod, status, unhealthy);
        Map<String, ContainerWaiting> waiting = new LinkedHashMap<>();
        Set<String> started = new HashSet<>();
        List<Instant> requeue = new ArrayList<>();
        Duration grace = gracePeriod(pod);

        if (actions.killPod()) {
            killPod(pod, status, grace);
            if (!actions.createSandbox()) {
                return new SyncOutcome(waiting, started, Optional.empty(), actions.initFailed());
            }
        }
        for (Map.Entry<String, String> kill : actions.containersToKill().entrySet()) {
            status.containers().stream().filter(container -> container.id().equals(kill.getKey())).findFirst()
                    .ifPresent(container -> killContainer(pod, container, grace, kill.getValue()));
        }
        for (String id : actions.containersToRemove()) {
            removeContainer(id);
        }

        String sandboxId;
        List<String> podIps;
        PodSandboxConfig sandboxConfig;
        if (actions.createSandbox()) {
            sandboxConfig = sandboxConfigs.build(pod, actions.sandboxAttempt());
            try {
                long start = System.nanoTime();
                Files.createDirectories(Path.of(sandboxConfig.getLogDirectory()));
                sandboxId = runtime.runPodSandbox(sandboxConfig, "");
                long ran = System.nanoTime();
                PodSandboxStatus sandboxStatus = runtime.podSandboxStatus(sandboxId, false).getStatus();
                if (sandboxStatus.getState() == PodSandboxState.SANDBOX_READY) {
                    // The status after this sync reads it from here instead of asking the runtime again.
                    sandboxDetails.put(sandboxId, sandboxStatus);
                }
                String ip = sandboxStatus.getNetwork().getIp();
                podIps = ip.isEmpty() ? List.of() : List.of(ip);
                if (log.isDebugEnabled()) {
                    log.debug("Created the sandbox of pod {}: RunPodSandbox {} ms, PodSandboxStatus {} ms", podDescription(pod),
                            millisBetween(start, ran), millisBetween(ran, System.nanoTime()));
                }
            }
            catch (CriException | IOException e) {
                events.event(pod, EventRecorder.WARNING, "FailedCreatePodSandBox",
                        "Failed to create pod sandbox: " + e.getMessage());
                log.warn("Creating the sandbox of pod {}/{} failed: {}", pod.getMetadata().getNamespace(),
                        pod.getMetadata().getName(), e.getMessage());
                return new SyncOutcome(waiting, started, Optional.of(clock.instant().plusSeconds(2)), false);
            }
            if (actions.sandboxAttempt() > 0) {
                events.event(pod, EventRecorder.NORMAL, "SandboxChanged",
                        "Pod sandbox changed, it will be killed and re-created.");
            }
        }
        else if (actions.sandboxId().isPresent()) {
            sandboxId = actions.sandboxId().get();
            sandboxConfig = sandboxConfigs.build(pod, status.latestSandbox().map(SandboxRuntimeStatus::attempt).orElse(0));
            podIps = status.podIps();
        }
        else {
            return new SyncOutcome(waiting, started, Optional.empty(), actions.initFailed());
        }

        if (actions.initFailed()) {
            return new SyncOutcome(waiting, started, Optional.empty(), true);
        }
        List<Container> toStart = new ArrayList<>();
        actions.nextInitContainer().flatMap(name -> findContainer(PodActions.initContainers(pod), name))
                .ifPresent(toStart::add);
        for (String name : actions.containersToStart()) {
            findContainer(pod.getSpec().getContainers(), name).ifPresent(toStart::add);
        }
        PodVolumes podVolumes = null;
        if (!toStart.isEmpty()) {
            try {
                podVolumes = volumes.await();
            }
            catch (VolumeMountException e) {
                return new SyncOutcome(waiting, started, Optional.empty(), false);
            }
        }
        for (Container container : toStart) {
            boolean init = actions.nextInitContainer().map(container.getName()::equals).orElse(false);
            StartResult result = startContainer(pod, container, init, status, sandboxId, sandboxConfig, podIps,
                    podVolumes);
            switch (result) {
                case StartResult.Started ignored -> started.add(container.getName());
                case StartResult.Waiting wait -> {
                    waiting.put(container.getName(), wait.waiting());
                    wait.retryAt().ifPresent(requeue::add);
                }
            }
        }
        removeDeadInstances(pod, status);
        return new SyncOutcome(waiting, started, requeue.stream().min(Comparator.naturalOrder()), false);
    }

    private sealed interface StartResult {
        record Started() implements StartResult {}

        record Waiting(ContainerWaiting waiting, Optional<Instant> retryAt) implements StartResult {}
    }

    private StartResult startContainer(Pod pod, Container container, boolean init, PodRuntimeStatus status,
            String sandboxId, PodSandboxConfig sandboxConfig, List<String> podIps, PodVolumes volumes) {
        Optional<ContainerRuntimeStatus> previous = status.latest(container.getName());
        String fieldPath = ContainerReferences.fieldPath(pod, container.getName());
        String backoffKey = pod.getMetadata().getUid() + "/" + container.getName();
        Optional<ContainerRuntimeStatus> exited = status.latestExited(container.getName());
        if (exited.isPresent()) {
            Instant finishedAt = exited.get().finishedAt().orElse(exited.get().createdAt());
            if (restartBackoff.isInBackOffSince(backoffKey, finishedAt)) {
                String message = "back-off " + Backoff.goDuration(restartBackoff.get(backoffKey))
                        + " restarting failed container=" + container.getName() + " pod=" + podDescription(pod);
                events.event(pod, fieldPath, EventRecorder.WARNING, "BackOff", "Back-off restarting failed container "
                        + container.getName() + " in pod " + podDescription(pod));
                return new StartResult.Waiting(new ContainerWaiting(CRASH_LOOP_BACK_OFF, message),
                        Optional.of(finishedAt.plus(restartBackoff.get(backoffKey))));
            }
            restartBackoff.next(backoffKey, finishedAt);
        }
        long start = System.nanoTime();
        ImageManager.Result image = images.ensureImageExists(pod, container, sandboxConfig);
        long imageReady = System.nanoTime();
        String imageRef;
        switch (image) {
            case ImageManager.Result.Present present -> imageRef = present.imageRef();
            case ImageManager.Result.Failed failed -> {
                events.event(pod, fieldPath, EventRecorder.WARNING, "Failed", "Error: " + failed.reason());
                return new StartResult.Waiting(new ContainerWaiting(failed.reason(), failed.message()),
                        images.backoffUntil(pod, container));
            }
        }
        int restartCount = previous.map(instance -> instance.restartCount() + 1).orElse(0);
        ContainerConfig containerConfig;
        try {
            List<EnvironmentVariable> variables = environment.resolve(pod, container,
                    new PodAddresses(podIps, hostIps));
            List<ContainerMount> mounts = volumes.mountsFor(container, variables, podIps);
            containerConfig = ContainerConfigs.build(pod, container, init, restartCount, imageRef, variables, mounts,
                    memoryCapacity);
        }
        catch (CreateContainerConfigException e) {
            events.event(pod, fieldPath, EventRecorder.WARNING, "Failed", "Error: " + e.getMessage());
            return new StartResult.Waiting(new ContainerWaiting(CreateContainerConfigException.REASON, e.getMessage()),
                    Optional.of(clock.instant().plusSeconds(2)));
        }
        String containerId;
        try {
            Files.createDirectories(Path.of(sandboxConfig.getLogDirectory(), container.getName()));
            containerId = runtime.createContainer(sandboxId, containerConfig, sandboxConfig);
        }
        catch (CriException | IOException e) {
            // Upstream shows the gRPC status's description, without "rpc error: code = …".
            String message = e instanceof CriException cri ? cri.description() : e.getMessage();
            events.event(pod, fieldPath, EventRecorder.WARNING, "Failed", "Error: " + message);
            return new StartResult.Waiting(new ContainerWaiting(CREATE_CONTAINER_ERROR, message),
                    Optional.of(clock.instant().plusSeconds(2)));
        }
        long created = System.nanoTime();
        events.event(pod, fieldPath, EventRecorder.NORMAL, "Created", "Created container " + container.getName());
        try {
            runtime.startContainer(containerId);
        }
        catch (CriException e) {
            // The runtime keeps the container as exited (containerd: reason StartError, exit code 128), so the next
            // sync (soon, as upstream's PLEG would see it die) restarts it through the CrashLoopBackOff above.
            events.event(pod, fieldPath, EventRecorder.WARNING, "Failed", "Error: " + e.description());
            return new StartResult.Waiting(new ContainerWaiting(RUN_CONTAINER_ERROR, e.description()),
                    Optional.of(clock.instant().plusSeconds(1)));
        }
        events.event(pod, fieldPath, EventRecorder.NORMAL, "Started", "Started container " + container.getName());
        if (log.isDebugEnabled()) {
            log.debug("Started container {} of pod {}: image {} ms, config and CreateContainer {} ms, StartContainer {} ms",
                    container.getName(), podDescription(pod), millisBetween(start, imageReady), millisBetween(imageReady, created),
                    millisBetween(created, System.nanoTime()));
        }
        Optional<String> hookFailure = hooks.runPostStart(pod, container, containerId, podIps);
        if (hookFailure.isPresent()) {
            try {
                runtime.stopContainer(containerId, gracePeriod(pod).toSeconds());
            }
            catch (CriException e) {
                log.warn("Killing container {} after its postStart hook failed: {}", containerId, e.getMessage());
            }
            return new StartResult.Waiting(new ContainerWaiting("PostStartHookError", hookFailure.get()),
                    Optional.empty());
        }
        return new StartResult.Started();
    }

    /** Kills every running container of the pod (in parallel, each with its preStop hook) and stops its sandboxes. */
    public void killPod(Pod pod, PodRuntimeStatus status, Duration gracePeriod) {
        List<Future<?>> kills = new ArrayList<>();
        for (ContainerRuntimeStatus container : status.containers()) {
            if (container.running() || container.state() == ContainerRuntimeStatus.State.UNKNOWN) {
                kills.add(killers.submit(() -> killContainer(pod, container, gracePeriod, "Stopping container "
                        + container.name())));
            }
        }
        for (Future<?> kill : kills) {
            try {
                kill.get();
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            catch (ExecutionException e) {
                log.warn("Killing a container of pod {} failed", pod.getMetadata().getName(), e.getCause());
            }
        }
        for (SandboxRuntimeStatus sandbox : status.sandboxes()) {
            if (sandbox.ready()) {
                runtime.stopPodSandbox(sandbox.id());
            }
        }
    }

    /** Removes every container and sandbox of a pod that no longer runs (after killPod). */
    public void removePod(PodRuntimeStatus status) {
        for (ContainerRuntimeStatus container : status.containers()) {
            removeContainer(container.id());
        }
        for (SandboxRuntimeStatus sandbox : status.sandboxes()) {
            try {
                runtime.stopPodSandbox(sandbox.id());
                runtime.removePodSandbox(sandbox.id());
            }
            catch (CriException e) {
                if (!e.isNotFound()) {
                    throw e;
                }
            }
        }
        restartBackoff.resetPrefix(status.uid() + "/");
        images.forgetPod(status.uid());
    }

    private void killContainer(Pod pod, ContainerRuntimeStatus container, Duration gracePeriod, String message) {
        events.event(pod, ContainerReferences.fieldPath(pod, container.name()), EventRecorder.NORMAL, "Killing", message);
        Duration remaining = gracePeriod;
        Optional<Container> spec = findContainer(pod.getSpec().getContainers(), container.name());
        if (spec.isPresent() && container.running() && spec.get().getLifecycle() != null
                && spec.get().getLifecycle().getPreStop() != null) {
            Duration hookTook = hooks.runPreStop(pod, spec.get(), container.id(), List.of(), gracePeriod);
            remaining = gracePeriod.minus(hookTook);
            if (remaining.compareTo(MIN_GRACE_AFTER_HOOK) < 0) {
                remaining = MIN_GRACE_AFTER_HOOK;
            }
        }
        try {
            runtime.stopContainer(container.id(), remaining.toSeconds());
        }
        catch (CriException e) {
            if (!e.isNotFound()) {
                throw e;
            }
        }
    }

    private void removeContainer(String id) {
        try {
            runtime.removeContainer(id);
        }
        catch (CriException e) {
            if (!e.isNotFound()) {
                log.warn("Removing container {} failed: {}", id, e.getMessage());
            }
        }
    }

    /**
     * Removes exited instances beyond the two newest of each container (the current one and the one
     * {@code lastState} and {@code kubectl logs --previous} show), and sandboxes that are not ready and hold nothing,
     * as upstream's container garbage collector keeps the last dead instance.
     */
    private void removeDeadInstances(Pod pod, PodRuntimeStatus status) {
        Map<String, Integer> seen = new HashMap<>();
        Set<String> sandboxesInUse = new HashSet<>();
        for (ContainerRuntimeStatus container : status.containers()) {
            int count = seen.merge(container.name(), 1, Integer::sum);
            if (count > 2 && container.exited()) {
                removeContainer(container.id());
            }
            else {
                sandboxesInUse.add(container.podSandboxId());
            }
        }
        for (SandboxRuntimeStatus sandbox : status.sandboxes().stream().skip(1).toList()) {
            if (!sandbox.ready() && !sandboxesInUse.contains(sandbox.id())) {
                try {
                    runtime.removePodSandbox(sandbox.id());
                }
                catch (CriException e) {
                    log.debug("Removing sandbox {} of pod {} failed: {}", sandbox.id(), pod.getMetadata().getName(),
                            e.getMessage());
                }
            }
        }
    }

    /** The pod's grace period: the deletion's if it is being deleted, else the spec's (default 30 s). */
    private static long millisBetween(long startNanos, long endNanos) {
        return (endNanos - startNanos) / 1_000_000;
    }

    public static Duration gracePeriod(Pod pod) {
        Long seconds = pod.getMetadata().getDeletionGracePeriodSeconds();
        if (seconds == null) {
            seconds = pod.getSpec().getTerminationGracePeriodSeconds();
        }
        return Duration.ofSeconds(seconds == null ? 30 : Math.max(0, seconds));
    }

    /** As upstream's {@code format.Pod}: {@code name_namespace(uid)}. */
    public static String podDescription(Pod pod) {
        return pod.getMetadata().getName() + "_" + pod.getMetadata().getNamespace() + "(" + pod.getMetadata().getUid()
                + ")";
    }

    private static Optional<Container> findContainer(List<Container> containers, String name) {
        return containers.stream().filter(container -> container.getName().equals(name)).findFirst();
    }

    /** The log file the runtime writes for a container, empty when the runtime does not know it. */
    public Optional<Path> logPath(String containerId) {
        try {
            String path = runtime.containerStatus(containerId, false).getStatus().getLogPath();
            return path.isEmpty() ? Optional.empty() : Optional.of(Path.of(path));
        }
        catch (CriException e) {
            if (e.isNotFound()) {
                return Optional.empty();
            }
            throw e;
        }
    }

    public void close() {
        killers.shutdownNow();
    }
}
