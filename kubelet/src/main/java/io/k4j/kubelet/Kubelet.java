package io.k4j.kubelet;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.k4j.api.codec.Timestamps;
import io.k4j.controllerkit.events.EventRecorder;
import io.k4j.kubelet.admission.ResourceAdmission;
import io.k4j.kubelet.config.ManifestFileSource;
import io.k4j.kubelet.config.MirrorPodClient;
import io.k4j.kubelet.config.StaticPods;
import io.k4j.kubelet.kuberuntime.ContainerWaiting;
import io.k4j.kubelet.kuberuntime.KubeRuntimeManager;
import io.k4j.kubelet.kuberuntime.PodRuntimeStatus;
import io.k4j.kubelet.kuberuntime.SyncOutcome;
import io.k4j.kubelet.nodestatus.NodeStatusManager;
import io.k4j.kubelet.podworkers.PodChanges;
import io.k4j.kubelet.podworkers.PodWorkers;
import io.k4j.kubelet.prober.ContainerProbeStatus;
import io.k4j.kubelet.prober.ContainerStates;
import io.k4j.kubelet.prober.ProbeListener;
import io.k4j.kubelet.prober.ProbeManager;
import io.k4j.kubelet.prober.ProbeType;
import io.k4j.kubelet.prober.RunningContainer;
import io.k4j.kubelet.server.PodContainerLocator;
import io.k4j.kubelet.status.PodStatusGenerator;
import io.k4j.kubelet.status.StatusManager;
import io.k4j.kubelet.volume.PodVolumes;
import io.k4j.kubelet.volume.VolumeManager;
import io.k4j.kubelet.volume.VolumeMountException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The kubelet of a real node: watches the pods bound to its node, admits them, and has one worker per pod sync it
 * through the runtime manager (volumes beside the sandbox, then containers), report its status, and on deletion kill
 * it gracefully, remove what is left and delete the pod object. A PLEG relist every second turns runtime changes
 * (a container that exited) into syncs; every pod is also synced every {@code syncFrequency}. Pods the runtime still
 * runs when the kubelet starts are re-adopted without restarting anything, because everything is found through the
 * runtime's labels. Static pods from a manifest path run beside the API's pods; each gets a mirror pod in the API
 * that shows its status, is recreated when deleted, and is deleted with its static pod.
 *
 * <p>Thread-safe.
 */
public final class Kubelet implements AutoCloseable, ContainerStates, ProbeListener, PodContainerLocator {
    private static final Logger log = LoggerFactory.getLogger(Kubelet.class);
    private static final Duration RETRY = Duration.ofSeconds(2);

    private final KubernetesClient client;
    private final KubeletConfig config;
    private final KubeRuntimeManager runtime;
    private final VolumeManager volumes;
    private final ProbeManager probes;
    private final StatusManager statuses;
    private final NodeStatusManager nodeStatus;
    private final EventRecorder events;
    private final InstantSource clock;
    private final PodWorkers workers;
    /** Writes a sync's first pod status beside the rest of the sync. */
    private final ExecutorService statusWriter = Executors.newVirtualThreadPerTaskExecutor();
    private final ExecutorService volumeSetUp = Executors.newVirtualThreadPerTaskExecutor();
    private final ScheduledExecutorService timer = Executors.newScheduledThreadPool(1,
            Thread.ofPlatform().daemon().name("k4j-kubelet-timer").factory());
    private final Map<String, Pod> pods = new ConcurrentHashMap<>();
    private final Map<String, Pod> lastKnown = new ConcurrentHashMap<>();
    private final Map<String, PodRuntimeStatus> runtimeCache = new ConcurrentHashMap<>();
    private final Map<String, Map<String, ContainerWaiting>> waiting = new ConcurrentHashMap<>();
    private final Map<String, Set<String>> unhealthy = new ConcurrentHashMap<>();
    private final Map<String, String> fingerprints = new ConcurrentHashMap<>();
    private final Set<String> admitted = ConcurrentHashMap.newKeySet();
    /** Whether a relist has completed: from then on, a pod the relist's cache lacks has nothing in the runtime. */
    private volatile boolean relisted;
    private final Set<String> rejected = ConcurrentHashMap.newKeySet();
    /** Mirror pods of the API by namespace/name; never run, only kept in step with the static pods. */
    private final Map<String, Pod> mirrorPods = new ConcurrentHashMap<>();
    /** The current static pods' UIDs by namespace/name. */
    private final Map<String, String> staticPods = new ConcurrentHashMap<>();
    /** Pods the eviction manager evicted: the grace period to kill them in and the status that says why. */
    private final Map<String, Eviction> evicted = new ConcurrentHashMap<>();
    private final List<Function<Pod, Optional<ResourceAdmission.Rejection>>> admissionChecks = new CopyOnWriteArrayList<>();
    private volatile SharedIndexInformer<Pod> informer;

    private record Eviction(Duration gracePeriod, String message, io.fabric8.kubernetes.api.model.PodCondition disruption) {}
    private volatile ManifestFileSource manifests;
    private final MirrorPodClient mirrorClient;

    /**
     * @param probeManagerFactory makes the probe manager from where it reads containers and whom it tells about
     *     results (this kubelet)
     */
    public Kubelet(KubernetesClient client, KubeletConfig config, KubeRuntimeManager runtime, VolumeManager volumes,
            BiFunction<ContainerStates, ProbeListener, ProbeManager> probeManagerFactory, NodeStatusManager nodeStatus,
            EventRecorder events, InstantSource clock) {
        this.client = requireNonNull(client, "client is null");
        this.config = requireNonNull(config, "config is null");
        this.runtime = requireNonNull(runtime, "runtime is null");
        this.volumes = requireNonNull(volumes, "volumes is null");
        this.nodeStatus = requireNonNull(nodeStatus, "nodeStatus is null");
        this.events = requireNonNull(events, "events is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.statuses = new StatusManager(client);
        this.probes = probeManagerFactory.apply(this, this);
        this.workers = new PodWorkers(this::syncPod);
        this.mirrorClient = new MirrorPodClient(client, config.nodeName());
    }

    /**
     * Runs static pods from a manifest path (upstream's {@code --pod-manifest-path}) besides the pods of the API,
     * with a mirror pod in the API for each. Call before {@link #start}.
     *
     * @param checkPeriod how often the path is read again
     */
    public void addManifestSource(Path manifestPath, Duration checkPeriod) {
        manifests = new ManifestFileSource(manifestPath, config.nodeName(), checkPeriod, clock, this::staticPodsChanged);
    }

    /**
     * Adds a check every new pod must pass before it runs (such as the eviction manager's under node pressure), run
     * before the resource fit. Call before {@link #start}.
     */
    public void addAdmissionCheck(Function<Pod, Optional<ResourceAdmission.Rejection>> check) {
        admissionChecks.add(requireNonNull(check, "check is null"));
    }

    /** Registers the node, starts watching its pods and the runtime; returns once the pod cache is synced. */
    public void start() {
        nodeStatus.start();
        if (manifests != null) {
            manifests.start();
        }
        informer = client.pods().inAnyNamespace()
                .withField("spec.nodeName", config.nodeName())
                .inform(new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(Pod pod) {
                        podChanged(pod);
                    }

                    @Override
                    public void onUpdate(Pod oldPod, Pod newPod) {
                        // A mirror pod is never one of this kubelet's pods to run, not even after a status-only update.
                        if (StaticPods.isMirrorPod(newPod) || PodChanges.needsSync(oldPod, newPod)) {
                            podChanged(newPod);
                        }
                        else {
                            // Only status, mostly the kubelet's own: keep the newest object, as upstream reconciles.
                            String uid = newPod.getMetadata().getUid();
                            pods.put(uid, newPod);
                            lastKnown.put(uid, newPod);
                        }
                    }

                    @Override
                    public void onDelete(Pod pod, boolean deletedFinalStateUnknown) {
                        if (StaticPods.isMirrorPod(pod)) {
                            mirrorPodDeleted(pod);
                            return;
                        }
                        String uid = pod.getMetadata().getUid();
                        pods.remove(uid);
                        workers.update(uid);
                    }
                }, 0);
        relist();
        timer.scheduleWithFixedDelay(this::relist, config.relistPeriod().toMillis(), config.relistPeriod().toMillis(),
                TimeUnit.MILLISECONDS);
        timer.scheduleWithFixedDelay(this::resync, config.syncFrequency().toMillis(),
                config.syncFrequency().toMillis(), TimeUnit.MILLISECONDS);
        log.info("Kubelet of node {} started", config.nodeName());
    }

    private void resync() {
        pods.keySet().forEach(workers::update);
        mirrorPods.values().stream()
                .filter(mirror -> !staticPods.containsKey(StaticPods.fullName(mirror)))
                .forEach(this::deleteOrphanedMirrorPod);
    }

    private void podChanged(Pod pod) {
        if (StaticPods.isMirrorPod(pod)) {
            mirrorPodChanged(pod);
            return;
        }
        String uid = pod.getMetadata().getUid();
        pods.put(uid, pod);
        lastKnown.put(uid, pod);
        workers.update(uid);
    }

    // ---- static pods and their mirror pods -----------------------------------------------------------------------

    /** A new set of static pods from the manifest source: removed ones are stopped, new or changed ones synced. */
    private void staticPodsChanged(List<Pod> current) {
        Map<String, Pod> byUid = new HashMap<>();
        current.forEach(pod -> byUid.put(pod.getMetadata().getUid(), pod));
        for (Map.Entry<String, String> entry : List.copyOf(staticPods.entrySet())) {
            if (!byUid.containsKey(entry.getValue())) {
                staticPods.remove(entry.getKey(), entry.getValue());
                pods.remove(entry.getValue());
                workers.update(entry.getValue());
            }
        }
        for (Pod pod : current) {
            String uid = pod.getMetadata().getUid();
            staticPods.put(StaticPods.fullName(pod), uid);
            if (pods.putIfAbsent(uid, pod) == null) {
                lastKnown.put(uid, pod);
                log.info("Static pod {} (uid {}) added", StaticPods.fullName(pod), uid);
                workers.update(uid);
            }
        }
    }

    private void mirrorPodChanged(Pod mirror) {
        String fullName = StaticPods.fullName(mirror);
        mirrorPods.put(fullName, mirror);
        String staticUid = staticPods.get(fullName);
        if (staticUid != null) {
            workers.update(staticUid);
        }
        else {
            // A mirror pod without its static pod (the manifest is gone, or was removed while the kubelet was down).
            deleteOrphanedMirrorPod(mirror);
        }
    }

    private void mirrorPodDeleted(Pod mirror) {
        String fullName = StaticPods.fullName(mirror);
        mirrorPods.computeIfPresent(fullName,
                (name, known) -> known.getMetadata().getUid().equals(mirror.getMetadata().getUid()) ? null : known);
        String staticUid = staticPods.get(fullName);
        if (staticUid != null) {
            workers.update(staticUid);
        }
    }

    private void deleteOrphanedMirrorPod(Pod mirror) {
        timer.execute(() -> {
            if (staticPods.containsKey(StaticPods.fullName(mirror))) {
                return;
            }
            try {
                log.info("Deleting orphaned mirror pod {}", StaticPods.fullName(mirror));
                mirrorClient.delete(mirror);
            }
            catch (KubernetesClientException e) {
                log.warn("Deleting orphaned mirror pod {} failed: {}", StaticPods.fullName(mirror), e.getMessage());
            }
        });
    }

    /**
     * Keeps the static pod's mirror pod current, as upstream's SyncPod: a mirror pod of another version or being
     * deleted is deleted, and a missing one created.
     */
    private void syncMirrorPod(Pod staticPod) {
        Pod mirror = mirrorPods.get(StaticPods.fullName(staticPod));
        if (mirror != null && !StaticPods.isMirrorOf(mirror, staticPod)) {
            log.info("Deleting mirror pod {} (uid {}): it is outdated or being deleted", StaticPods.fullName(mirror),
                    mirror.getMetadata().getUid());
            mirrorClient.delete(mirror);
            mirrorPods.remove(StaticPods.fullName(mirror), mirror);
            mirror = null;
        }
        if (mirror == null) {
            log.info("Creating mirror pod for static pod {}", StaticPods.fullName(staticPod));
            mirrorClient.create(staticPod);
        }
    }

    /** An older static pod of the same name that is still being stopped (its manifest changed). */
    private boolean olderStaticPodStopping(Pod staticPod) {
        String uid = staticPod.getMetadata().getUid();
        String fullName = StaticPods.fullName(staticPod);
        return lastKnown.entrySet().stream().anyMatch(entry -> !entry.getKey().equals(uid)
                && !pods.containsKey(entry.getKey()) && StaticPods.fullName(entry.getValue()).equals(fullName));
    }

    /** The pod of the API whose status shows {@code pod}: the pod itself, or a static pod's current mirror pod. */
    private Optional<Pod> statusTarget(Pod pod) {
        if (!StaticPods.isStaticPod(pod)) {
            return Optional.of(pod);
        }
        return Optional.ofNullable(mirrorPods.get(StaticPods.fullName(pod)))
                .filter(mirror -> StaticPods.isMirrorOf(mirror, pod));
    }

    /** PLEG: lists the runtime and syncs every pod whose sandboxes or containers changed. */
    private void relist() {
        Map<String, PodRuntimeStatus> listed;
        try {
            listed = runtime.listPods();
        }
        catch (RuntimeException e) {
            log.debug("Relisting the runtime failed: {}", e.getMessage());
            return;
        }
        for (Map.Entry<String, PodRuntimeStatus> entry : listed.entrySet()) {
            String uid = entry.getKey();
            runtimeCache.put(uid, entry.getValue());
            String fingerprint = fingerprint(entry.getValue());
            if (!fingerprint.equals(fingerprints.put(uid, fingerprint))) {
                workers.update(uid);
            }
        }
        for (String uid : List.copyOf(fingerprints.keySet())) {
            if (!listed.containsKey(uid)) {
                fingerprints.remove(uid);
                runtimeCache.remove(uid);
                workers.update(uid);
            }
        }
        relisted = true;
    }

    private static String fingerprint(PodRuntimeStatus status) {
        StringBuilder fingerprint = new StringBuilder();
        status.sandboxes().forEach(sandbox -> fingerprint.append(sandbox.id()).append(sandbox.ready()).append(';'));
        status.containers().forEach(container -> fingerprint.append(container.id()).append(container.state()).append(';'));
        return fingerprint.toString();
    }

    // ---- the pod sync -------------------------------------------------------------------------------------------

    private void syncPod(String uid) {
        Pod pod = pods.get(uid);
        try {
            if (pod == null) {
                cleanUpGonePod(uid);
            }
            else if (pod.getMetadata().getDeletionTimestamp() != null) {
                terminatePod(pod);
            }
            else if (isTerminal(pod) || evicted.containsKey(uid)) {
                stopTerminalPod(pod);
            }
            else {
                syncRunningPod(pod);
            }
        }
        catch (RuntimeException e) {
            log.warn("Syncing pod {} failed: {}", pod == null ? uid : pod.getMetadata().getName(), e.toString());
            requeue(uid, clock.instant().plus(RETRY));
        }
    }

    private void syncRunningPod(Pod pod) {
        String uid = pod.getMetadata().getUid();
        if (rejected.contains(uid)) {
            return;
        }
        boolean staticPod = StaticPods.isStaticPod(pod);
        if (staticPod && olderStaticPodStopping(pod)) {
            // As upstream: a static pod's new version starts only once its old version stopped.
            requeue(uid, clock.instant().plus(Duration.ofSeconds(1)));
            return;
        }
        PodRuntimeStatus status = runtimeStatusForSync(pod);
        if (!admitted.contains(uid)) {
            if (status.containers().isEmpty() && status.sandboxes().isEmpty()) {
                Optional<ResourceAdmission.Rejection> rejection = admissionChecks.stream()
                        .map(check -> check.apply(pod))
                        .flatMap(Optional::stream)
                        .findFirst()
                        .or(() -> ResourceAdmission.admit(pod, admittedPods(uid), nodeStatus.allocatable()));
                if (rejection.isPresent()) {
                    reject(pod, rejection.get());
                    return;
                }
            }
            admitted.add(uid);
        }
        if (staticPod) {
            try {
                syncMirrorPod(pod);
            }
            catch (RuntimeException e) {
                // The static pod runs whether or not the API takes its mirror pod; the next sync tries again.
                log.warn("Syncing the mirror pod of static pod {} failed: {}", StaticPods.fullName(pod), e.getMessage());
                requeue(uid, clock.instant().plus(RETRY));
            }
        }
        // As upstream's SyncPod: the status of what runs now is written before volumes, sandbox, images and containers
        // are prepared, so a new pod shows Pending and ContainerCreating (with hostIP and startTime) while that work
        // takes its time; an unchanged status is not written again. The write runs beside that work, as upstream's
        // status manager writes apart from the pod worker; this sync waits for it before its last status write and
        // before it ends, so the pod's writes stay in order.
        long syncStart = System.nanoTime();
        AtomicLong firstStatusNanos = new AtomicLong();
        Future<?> firstStatus = statusWriter.submit(() -> {
            try {
                writeStatus(pod, status);
            }
            catch (RuntimeException e) {
                log.debug("Writing the status of pod {} failed; the end of its sync writes again: {}",
                        pod.getMetadata().getName(), e.toString());
            }
            firstStatusNanos.set(System.nanoTime() - syncStart);
        });
        // Volumes are set up beside the runtime's work on the sandbox, which needs none of them; the containers wait
        // for them. Upstream's SyncPod mounts first: a pod whose volume fails keeps its sandbox here, as upstream's
        // does when a volume fails after the sandbox exists.
        AtomicLong mountNanos = new AtomicLong();
        Future<PodVolumes> mounting = volumeSetUp.submit(() -> {
            try {
                return volumes.mount(pod);
            }
            finally {
                mountNanos.set(System.nanoTime() - syncStart);
            }
        });
        try {
            probes.addPod(pod);
            // A copy: a failure reported while this sync runs stays for the next one, which its report asked for.
            Set<String> failedProbes = Set.copyOf(unhealthy.getOrDefault(uid, Set.of()));
            SyncOutcome outcome = runtime.syncPod(pod, status, () -> awaitVolumes(mounting), failedProbes);
            long runtimeSynced = System.nanoTime();
            Optional<VolumeMountException> mountFailure = Optional.empty();
            try {
                awaitVolumes(mounting);
            }
            catch (VolumeMountException e) {
                mountFailure = Optional.of(e);
            }
            failedProbes.forEach(id -> unhealthy.getOrDefault(uid, Set.of()).remove(id));
            Map<String, ContainerWaiting> reasons = waiting.computeIfAbsent(uid, key -> new ConcurrentHashMap<>());
            outcome.started().forEach(reasons::remove);
            reasons.putAll(outcome.waiting());
            PodRuntimeStatus after = runtime.podStatus(uid, pod.getMetadata().getName(), pod.getMetadata().getNamespace());
            runtimeCache.put(uid, after);
            fingerprints.put(uid, fingerprint(after));
            awaitQuietly(firstStatus);
            writeStatus(pod, after);
            if (mountFailure.isPresent()) {
                events.event(pod, EventRecorder.WARNING, mountFailure.get().reason(), mountFailure.get().getMessage());
                requeue(uid, clock.instant().plus(RETRY));
                return;
            }
            if (!outcome.started().isEmpty() && log.isDebugEnabled()) {
                log.debug("Synced pod {}/{}, started {}: runtime {} ms (volumes beside it {} ms), final status {} ms; "
                        + "first status written beside them in {} ms", pod.getMetadata().getNamespace(),
                        pod.getMetadata().getName(), outcome.started(), (runtimeSynced - syncStart) / 1_000_000,
                        mountNanos.get() / 1_000_000, (System.nanoTime() - runtimeSynced) / 1_000_000,
                        firstStatusNanos.get() / 1_000_000);
            }
            outcome.requeueAt().ifPresent(at -> requeue(uid, at));
        }
        finally {
            // Nothing of this sync runs on: an unmount after it must not meet a mount still in progress.
            awaitQuietly(mounting);
            awaitQuietly(firstStatus);
        }
    }

    /**
     * What the runtime has of the pod now. A pod's first sync takes it from the relist's cache, as upstream's pod
     * worker takes its first status from the PLEG cache: only this pod's worker creates anything of the pod, so what
     * the completed first relist did not see does not exist, and a new pod starts without two runtime list calls.
     */
    private PodRuntimeStatus runtimeStatusForSync(Pod pod) {
        String uid = pod.getMetadata().getUid();
        if (relisted && !admitted.contains(uid)) {
            PodRuntimeStatus cached = runtimeCache.get(uid);
            if (cached == null) {
                return PodRuntimeStatus.empty(uid, pod.getMetadata().getName(), pod.getMetadata().getNamespace());
            }
        }
        return runtime.podStatus(uid, pod.getMetadata().getName(), pod.getMetadata().getNamespace());
    }

    private static PodVolumes awaitVolumes(Future<PodVolumes> mounting) throws VolumeMountException {
        try {
            return mounting.get();
        }
        catch (ExecutionException e) {
            if (e.getCause() instanceof VolumeMountException failure) {
                throw failure;
            }
            if (e.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            throw new IllegalStateException(e.getCause());
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the pod's volumes", e);
        }
    }

    private static void awaitQuietly(Future<?> task) {
        try {
            task.get();
        }
        catch (ExecutionException e) {
            // The task logs its own failures.
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private List<Pod> admittedPods(String except) {
        List<Pod> result = new ArrayList<>();
        for (Pod other : pods.values()) {
            String otherUid = other.getMetadata().getUid();
            if (!otherUid.equals(except) && admitted.contains(otherUid) && !isTerminal(other)) {
                result.add(other);
            }
        }
        return result;
    }

    private void reject(Pod pod, ResourceAdmission.Rejection rejection) {
        String uid = pod.getMetadata().getUid();
        rejected.add(uid);
        events.event(pod, EventRecorder.WARNING, rejection.reason(), rejection.message());
        PodStatus status = new PodStatusBuilder(pod.getStatus() == null ? new PodStatus() : pod.getStatus())
                .withPhase("Failed")
                .withReason(rejection.reason())
                .withMessage(rejection.message())
                .withStartTime(Timestamps.format(clock.instant()))
                .build();
        statusTarget(pod).ifPresent(target -> statuses.setPodStatus(target, status));
    }

    private void writeStatus(Pod pod, PodRuntimeStatus runtimeStatus) {
        String uid = pod.getMetadata().getUid();
        Optional<Pod> target = statusTarget(pod);
        if (target.isEmpty()) {
            return;
        }
        // A static pod's status lives on its mirror pod: transition times and start time continue from there.
        Pod withStatus = target.get() == pod ? pod
                : new io.fabric8.kubernetes.api.model.PodBuilder(pod).withStatus(target.get().getStatus()).build();
        PodStatus status = PodStatusGenerator.generate(withStatus, runtimeStatus, waiting.getOrDefault(uid, Map.of()),
                this::probeStatus, config.nodeIps(), clock.instant());
        statuses.setPodStatus(target.get(), status);
    }

    private ContainerProbeStatus probeStatus(String podUid, String containerName, String containerId) {
        return probes.status(podUid, containerName, containerId);
    }

    /** A pod being deleted: kill it within its grace period, remove what is left, then delete the pod object. */
    private void terminatePod(Pod pod) {
        String uid = pod.getMetadata().getUid();
        probes.removePod(uid);
        PodRuntimeStatus status = runtime.podStatus(uid, pod.getMetadata().getName(), pod.getMetadata().getNamespace());
        runtime.killPod(pod, status, KubeRuntimeManager.gracePeriod(pod));
        runtime.removePod(runtime.podStatus(uid, pod.getMetadata().getName(), pod.getMetadata().getNamespace()));
        unmount(uid);
        deletePodObject(pod);
        forget(uid);
    }

    /** A pod that succeeded or failed: nothing of it may run any more. */
    private void stopTerminalPod(Pod pod) {
        String uid = pod.getMetadata().getUid();
        probes.removePod(uid);
        PodRuntimeStatus status = runtime.podStatus(uid, pod.getMetadata().getName(), pod.getMetadata().getNamespace());
        Eviction eviction = evicted.get(uid);
        if (eviction != null) {
            // Written by this pod's worker, as every status of it is: a sync that was under way when the eviction
            // came cannot write its Running status over this one.
            writeEvictedStatus(pod, eviction, status);
        }
        if (!status.isStopped()) {
            runtime.killPod(pod, status, eviction != null ? eviction.gracePeriod() : KubeRuntimeManager.gracePeriod(pod));
            if (eviction != null) {
                writeEvictedStatus(pod, eviction, runtime.podStatus(uid, pod.getMetadata().getName(),
                        pod.getMetadata().getNamespace()));
            }
        }
    }

    /** An evicted pod's containers are stopped: its status shows them terminated, and stays Failed/Evicted. */
    private void writeEvictedStatus(Pod pod, Eviction eviction, PodRuntimeStatus runtimeStatus) {
        Optional<Pod> target = statusTarget(pod);
        if (target.isEmpty()) {
            return;
        }
        PodStatus generated = PodStatusGenerator.generate(pod, runtimeStatus, waiting.getOrDefault(pod.getMetadata().getUid(), Map.of()),
                this::probeStatus, config.nodeIps(), clock.instant());
        List<io.fabric8.kubernetes.api.model.PodCondition> conditions = new ArrayList<>(
                generated.getConditions() == null ? List.of() : generated.getConditions());
        conditions.add(eviction.disruption());
        statuses.setPodStatus(target.get(), new PodStatusBuilder(generated)
                .withPhase("Failed")
                .withReason("Evicted")
                .withMessage(eviction.message())
                .withConditions(conditions)
                .build());
    }

    /** A pod gone from the API (deleted while the kubelet was down, or force-deleted): remove what the runtime has. */
    private void cleanUpGonePod(String uid) {
        probes.removePod(uid);
        PodRuntimeStatus status = runtimeCache.get(uid);
        Pod known = lastKnown.get(uid);
        if (status == null && known != null) {
            status = runtime.podStatus(uid, known.getMetadata().getName(), known.getMetadata().getNamespace());
        }
        if (status != null && !(status.containers().isEmpty() && status.sandboxes().isEmpty())) {
            if (known != null) {
                runtime.killPod(known, status, KubeRuntimeManager.gracePeriod(known));
            }
            else {
                runtime.killPod(placeholder(status), status, Duration.ZERO);
            }
            runtime.removePod(runtime.podStatus(uid, status.name(), status.namespace()));
        }
        if (known != null && StaticPods.isStaticPod(known) && !staticPods.containsKey(StaticPods.fullName(known))) {
            Pod mirror = mirrorPods.get(StaticPods.fullName(known));
            if (mirror != null) {
                log.info("Deleting mirror pod {}: its static pod is gone", StaticPods.fullName(known));
                mirrorClient.delete(mirror);
            }
        }
        unmount(uid);
        forget(uid);
    }

    private static Pod placeholder(PodRuntimeStatus status) {
        Pod pod = new Pod();
        pod.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
                .withUid(status.uid()).withName(status.name()).withNamespace(status.namespace()).build());
        pod.setSpec(new io.fabric8.kubernetes.api.model.PodSpec());
        return pod;
    }

    private void unmount(String uid) {
        try {
            volumes.unmount(uid);
        }
        catch (IOException e) {
            log.warn("Removing the volumes of pod {} failed: {}", uid, e.getMessage());
        }
    }

    private void deletePodObject(Pod pod) {
        // As upstream's status manager: the final delete, grace period 0, only this pod (not a new one of the name).
        String path = "api/v1/namespaces/" + pod.getMetadata().getNamespace() + "/pods/" + pod.getMetadata().getName();
        String url = client.getMasterUrl().toString().replaceAll("/+$", "") + "/" + path;
        Map<String, Object> options = Map.of("kind", "DeleteOptions", "apiVersion", "v1", "gracePeriodSeconds", 0,
                "preconditions", Map.of("uid", pod.getMetadata().getUid()));
        try {
            client.raw(url, "DELETE", options);
        }
        catch (KubernetesClientException e) {
            if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND && e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                throw e;
            }
        }
    }

    private void forget(String uid) {
        runtimeCache.remove(uid);
        waiting.remove(uid);
        unhealthy.remove(uid);
        admitted.remove(uid);
        rejected.remove(uid);
        evicted.remove(uid);
        statuses.forget(uid);
        if (!pods.containsKey(uid)) {
            lastKnown.remove(uid);
            workers.forget(uid);
        }
    }

    private static boolean isTerminal(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    private void requeue(String uid, Instant at) {
        long delay = Math.max(0, Duration.between(clock.instant(), at).toMillis());
        timer.schedule(() -> workers.update(uid), delay, TimeUnit.MILLISECONDS);
    }

    // ---- eviction ----------------------------------------------------------------------------------------------

    /** The pods that run or are about to: admitted, neither terminated, evicted nor being deleted. */
    public List<Pod> activePods() {
        return pods.values().stream()
                .filter(pod -> admitted.contains(pod.getMetadata().getUid()))
                .filter(pod -> !isTerminal(pod) && !evicted.containsKey(pod.getMetadata().getUid()))
                .filter(pod -> pod.getMetadata().getDeletionTimestamp() == null)
                .toList();
    }

    /**
     * Evicts a pod as upstream's eviction manager: an {@code Evicted} event now; then the pod's worker writes its
     * status Failed with reason {@code Evicted}, the message and a DisruptionTarget condition, and kills its
     * containers within {@code gracePeriod}.
     */
    public void evictPod(Pod pod, String message, Duration gracePeriod) {
        String uid = pod.getMetadata().getUid();
        events.event(statusTarget(pod).orElse(pod), EventRecorder.WARNING, "Evicted", message);
        io.fabric8.kubernetes.api.model.PodCondition disruption = new io.fabric8.kubernetes.api.model.PodConditionBuilder()
                .withType("DisruptionTarget")
                .withStatus("True")
                .withReason("TerminationByKubelet")
                .withMessage(message)
                .withLastTransitionTime(Timestamps.format(clock.instant()))
                .build();
        evicted.put(uid, new Eviction(gracePeriod, message, disruption));
        workers.update(uid);
    }

    // ---- what the prober reads and tells ------------------------------------------------------------------------

    @Override
    public Optional<RunningContainer> container(String podUid, String containerName) {
        PodRuntimeStatus status = runtimeCache.get(podUid);
        if (status == null) {
            return Optional.empty();
        }
        return status.latest(containerName).map(instance -> new RunningContainer(instance.id(), instance.running(),
                instance.startedAt().orElse(instance.createdAt()), status.podIps()));
    }

    @Override
    public void restartContainer(String podUid, String containerName, String containerId, ProbeType type,
            String message) {
        unhealthy.computeIfAbsent(podUid, key -> ConcurrentHashMap.newKeySet()).add(containerId);
        workers.update(podUid);
    }

    @Override
    public void probeResultChanged(String podUid, String containerName, String containerId, ProbeType type) {
        workers.update(podUid);
    }

    // ---- what the kubelet server reads ------------------------------------------------------------------------

    @Override
    public List<Pod> pods() {
        return pods.values().stream().map(this::withReportedStatus).toList();
    }

    @Override
    public Optional<Pod> pod(String namespace, String name) {
        return pods.values().stream()
                .filter(pod -> pod.getMetadata().getNamespace().equals(namespace)
                        && pod.getMetadata().getName().equals(name))
                .findFirst()
                .map(this::withReportedStatus);
    }

    /** A static pod with the status its mirror pod shows (the static pod itself has none). */
    private Pod withReportedStatus(Pod pod) {
        if (!StaticPods.isStaticPod(pod)) {
            return pod;
        }
        return statusTarget(pod)
                .map(mirror -> new io.fabric8.kubernetes.api.model.PodBuilder(pod).withStatus(mirror.getStatus()).build())
                .orElse(pod);
    }

    @Override
    public Optional<Path> logPath(String containerId) {
        return runtime.logPath(containerId);
    }

    @Override
    public Optional<String> sandboxId(Pod pod) {
        return Optional.ofNullable(runtimeCache.get(pod.getMetadata().getUid()))
                .flatMap(PodRuntimeStatus::latestSandbox)
                .filter(sandbox -> sandbox.ready())
                .map(sandbox -> sandbox.id());
    }

    /** The pods this kubelet runs, as the runtime last reported them (for the kubelet server and tests). */
    public Map<String, PodRuntimeStatus> runtimePods() {
        return Map.copyOf(new HashMap<>(runtimeCache));
    }

    @Override
    public void close() {
        if (manifests != null) {
            manifests.close();
        }
        if (informer != null) {
            informer.close();
        }
        timer.shutdownNow();
        workers.close();
        statusWriter.close();
        volumeSetUp.close();
        probes.close();
        nodeStatus.close();
        runtime.close();
    }
}
