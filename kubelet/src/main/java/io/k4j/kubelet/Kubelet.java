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
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

/**
 * The kubelet of a real node: watches the pods bound to its node, admits them, and has one worker per pod sync it
 * through the runtime manager (volumes first, then sandbox and containers), report its status, and on deletion kill
 * it gracefully, remove what is left and delete the pod object. A PLEG relist every second turns runtime changes
 * (a container that exited) into syncs; every pod is also synced every {@code syncFrequency}. Pods the runtime still
 * runs when the kubelet starts are re-adopted without restarting anything, because everything is found through the
 * runtime's labels.
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
    private final ScheduledExecutorService timer = Executors.newScheduledThreadPool(1,
            Thread.ofPlatform().daemon().name("k4j-kubelet-timer").factory());
    private final Map<String, Pod> pods = new ConcurrentHashMap<>();
    private final Map<String, Pod> lastKnown = new ConcurrentHashMap<>();
    private final Map<String, PodRuntimeStatus> runtimeCache = new ConcurrentHashMap<>();
    private final Map<String, Map<String, ContainerWaiting>> waiting = new ConcurrentHashMap<>();
    private final Map<String, Set<String>> unhealthy = new ConcurrentHashMap<>();
    private final Map<String, String> fingerprints = new ConcurrentHashMap<>();
    private final Set<String> admitted = ConcurrentHashMap.newKeySet();
    private final Set<String> rejected = ConcurrentHashMap.newKeySet();
    private volatile SharedIndexInformer<Pod> informer;

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
    }

    /** Registers the node, starts watching its pods and the runtime; returns once the pod cache is synced. */
    public void start() {
        nodeStatus.start();
        informer = client.pods().inAnyNamespace()
                .withField("spec.nodeName", config.nodeName())
                .inform(new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(Pod pod) {
                        podChanged(pod);
                    }

                    @Override
                    public void onUpdate(Pod oldPod, Pod newPod) {
                        if (PodChanges.needsSync(oldPod, newPod)) {
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
                        String uid = pod.getMetadata().getUid();
                        pods.remove(uid);
                        workers.update(uid);
                    }
                }, 0);
        relist();
        timer.scheduleWithFixedDelay(this::relist, config.relistPeriod().toMillis(), config.relistPeriod().toMillis(),
                TimeUnit.MILLISECONDS);
        timer.scheduleWithFixedDelay(() -> pods.keySet().forEach(workers::update), config.syncFrequency().toMillis(),
                config.syncFrequency().toMillis(), TimeUnit.MILLISECONDS);
        log.info("Kubelet of node {} started", config.nodeName());
    }

    private void podChanged(Pod pod) {
        String uid = pod.getMetadata().getUid();
        pods.put(uid, pod);
        lastKnown.put(uid, pod);
        workers.update(uid);
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
            else if (isTerminal(pod)) {
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
        PodRuntimeStatus status = runtime.podStatus(uid, pod.getMetadata().getName(), pod.getMetadata().getNamespace());
        if (!admitted.contains(uid)) {
            if (status.containers().isEmpty() && status.sandboxes().isEmpty()) {
                Optional<ResourceAdmission.Rejection> rejection = ResourceAdmission.admit(pod, admittedPods(uid),
                        nodeStatus.allocatable());
                if (rejection.isPresent()) {
                    reject(pod, rejection.get());
                    return;
                }
            }
            admitted.add(uid);
        }
        PodVolumes podVolumes;
        try {
            podVolumes = volumes.mount(pod);
        }
        catch (VolumeMountException e) {
            events.event(pod, EventRecorder.WARNING, e.reason(), e.getMessage());
            writeStatus(pod, status);
            requeue(uid, clock.instant().plus(RETRY));
            return;
        }
        probes.addPod(pod);
        Set<String> failedProbes = unhealthy.getOrDefault(uid, Set.of());
        SyncOutcome outcome = runtime.syncPod(pod, status, podVolumes, Set.copyOf(failedProbes));
        failedProbes.forEach(id -> unhealthy.getOrDefault(uid, Set.of()).remove(id));
        Map<String, ContainerWaiting> reasons = waiting.computeIfAbsent(uid, key -> new ConcurrentHashMap<>());
        outcome.started().forEach(reasons::remove);
        reasons.putAll(outcome.waiting());
        PodRuntimeStatus after = runtime.podStatus(uid, pod.getMetadata().getName(), pod.getMetadata().getNamespace());
        runtimeCache.put(uid, after);
        fingerprints.put(uid, fingerprint(after));
        writeStatus(pod, after);
        outcome.requeueAt().ifPresent(at -> requeue(uid, at));
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
        statuses.setPodStatus(pod, status);
    }

    private void writeStatus(Pod pod, PodRuntimeStatus runtimeStatus) {
        String uid = pod.getMetadata().getUid();
        PodStatus status = PodStatusGenerator.generate(pod, runtimeStatus, waiting.getOrDefault(uid, Map.of()),
                this::probeStatus, config.nodeIps(), clock.instant());
        statuses.setPodStatus(pod, status);
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
        if (!status.isStopped()) {
            runtime.killPod(pod, status, KubeRuntimeManager.gracePeriod(pod));
        }
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
        return List.copyOf(pods.values());
    }

    @Override
    public Optional<Pod> pod(String namespace, String name) {
        return pods.values().stream()
                .filter(pod -> pod.getMetadata().getNamespace().equals(namespace)
                        && pod.getMetadata().getName().equals(name))
                .findFirst();
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
        if (informer != null) {
            informer.close();
        }
        timer.shutdownNow();
        workers.close();
        probes.close();
        nodeStatus.close();
        runtime.close();
    }
}
