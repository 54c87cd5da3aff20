package io.k4j.kubelet.simulated;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.HostIP;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.PodReadinessGate;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.k4j.api.codec.Timestamps;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The simulated kubelet's pod state machine: Pending ▶ Running (IP, containers running and ready) ▶ Succeeded or
 * Failed when the containers exit (pods with restartPolicy Never/OnFailure, Job pods, or pods annotated with
 * {@link SimulatedAnnotations#RUN_SECONDS}); containers that exit under restartPolicy Always (or fail under
 * OnFailure) restart instead. A pod with a deletionTimestamp gets its containers terminated and is then deleted.
 * A pure function of the pod and the time: stateless and thread-safe.
 */
final class PodLifecycle {
    static final String RUNNING = "Running";
    static final String PENDING = "Pending";
    static final String SUCCEEDED = "Succeeded";
    static final String FAILED = "Failed";
    /** Containers that keep exiting restart at most this often, so a zero run time cannot spin. */
    static final Duration MIN_RESTART_INTERVAL = Duration.ofSeconds(1);
    private static final String CONTAINER_ID_SCHEME = "k4j-simulated://";
    /** A first path segment that names a registry rather than a Docker Hub user, as Docker's reference parsing decides. */
    private static final Pattern REGISTRY_HOST = Pattern.compile(".*[.:].*|localhost");
    /**
     * The image IDs of the images seen so far: every status write names them for each container, and a cluster runs
     * few distinct images. Forgotten all at once past the bound, for a cluster that runs endlessly many.
     */
    private static final Map<String, String> IMAGE_IDS = new ConcurrentHashMap<>();
    private static final int MAX_REMEMBERED_IMAGE_IDS = 4096;

    private final Duration defaultRunDuration;

    /** @param defaultRunDuration how long containers of pods that end run when the pod does not say */
    PodLifecycle(Duration defaultRunDuration) {
        this.defaultRunDuration = requireNonNull(defaultRunDuration, "defaultRunDuration is null");
    }

    /**
     * The next step for a pod bound to a simulated node.
     *
     * @param hostIp the node's InternalIP
     * @param podIps gives the pod its IP (only asked when the pod starts)
     */
    PodAction decide(Pod pod, String hostIp, Function<Pod, String> podIps, Instant now) {
        requireNonNull(pod, "pod is null");
        String phase = phase(pod);
        boolean terminal = SUCCEEDED.equals(phase) || FAILED.equals(phase);
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            if (terminal || !RUNNING.equals(phase)) {
                return new PodAction.Delete(Optional.empty());
            }
            return new PodAction.Delete(Optional.of(finished(pod, 0, now)));
        }
        if (terminal) {
            return new PodAction.Nothing();
        }
        if (!RUNNING.equals(phase)) {
            // A pod in the host's network namespace has the host's address, as on a real node.
            String podIp = Boolean.TRUE.equals(pod.getSpec().getHostNetwork()) ? hostIp : podIps.apply(pod);
            return new PodAction.UpdateStatus(running(pod, hostIp, podIp, now), "started");
        }
        Optional<PodStatus> readiness = readinessRestored(pod, now);
        if (readiness.isPresent()) {
            return new PodAction.UpdateStatus(readiness.get(), "readiness restored");
        }
        Optional<Duration> runDuration = runDuration(pod);
        if (runDuration.isEmpty()) {
            return new PodAction.Nothing();
        }
        int exitCode = exitCode(pod);
        String restartPolicy = restartPolicy(pod);
        boolean restarts = "Always".equals(restartPolicy) || ("OnFailure".equals(restartPolicy) && exitCode != 0);
        Duration run = restarts && runDuration.get().compareTo(MIN_RESTART_INTERVAL) < 0 ? MIN_RESTART_INTERVAL : runDuration.get();
        Instant exitsAt = containersStartedAt(pod).plus(run);
        if (now.isBefore(exitsAt)) {
            return new PodAction.WaitUntil(exitsAt);
        }
        if (restarts) {
            return new PodAction.UpdateStatus(restarted(pod, exitCode, now), "restarted");
        }
        return new PodAction.UpdateStatus(finished(pod, exitCode, now), exitCode == 0 ? "succeeded" : "failed");
    }

    /**
     * {@code pod} as a status write left it: its metadata copied with {@code resourceVersion}, {@code status} as
     * written, the spec shared (the simulator never changes a pod's spec, and neither does a status write).
     */
    static Pod withStatus(Pod pod, PodStatus status, String resourceVersion) {
        requireNonNull(pod, "pod is null");
        requireNonNull(status, "status is null");
        requireNonNull(resourceVersion, "resourceVersion is null");
        Pod written = new Pod();
        written.setApiVersion(pod.getApiVersion());
        written.setKind(pod.getKind());
        written.setMetadata(new ObjectMetaBuilder(pod.getMetadata()).withResourceVersion(resourceVersion).build());
        written.setSpec(pod.getSpec());
        written.setStatus(status);
        return written;
    }

    /**
     * Whether {@link #decide} starts this pod (neither deleted, nor ended, nor running yet): known without building the
     * running status, which is what most pods bound to a simulated node need.
     */
    static boolean starts(Pod pod) {
        String phase = phase(pod);
        return pod.getMetadata().getDeletionTimestamp() == null && !RUNNING.equals(phase) && !SUCCEEDED.equals(phase) && !FAILED.equals(phase);
    }

    static String phase(Pod pod) {
        PodStatus status = pod.getStatus();
        return status == null || status.getPhase() == null || status.getPhase().isEmpty() ? PENDING : status.getPhase();
    }

    /** Pods that end on their own: restartPolicy Never or OnFailure, which Job pods always have. */
    static boolean ends(Pod pod) {
        return !"Always".equals(restartPolicy(pod)) || ownedByJob(pod);
    }

    private static boolean ownedByJob(Pod pod) {
        List<OwnerReference> owners = pod.getMetadata().getOwnerReferences();
        return owners != null && owners.stream().anyMatch(owner -> "Job".equals(owner.getKind()) && Boolean.TRUE.equals(owner.getController()));
    }

    private static String restartPolicy(Pod pod) {
        String policy = pod.getSpec() == null ? null : pod.getSpec().getRestartPolicy();
        return policy == null || policy.isEmpty() ? "Always" : policy;
    }

    Optional<Duration> runDuration(Pod pod) {
        Optional<String> annotation = annotation(pod, SimulatedAnnotations.RUN_SECONDS);
        if (annotation.isPresent()) {
            try {
                double seconds = Double.parseDouble(annotation.get().trim());
                if (seconds >= 0 && Double.isFinite(seconds)) {
                    return Optional.of(Duration.ofMillis(Math.round(seconds * 1000)));
                }
            } catch (NumberFormatException e) {
                // An unreadable annotation counts as absent: the pod behaves as its restart policy says.
            }
        }
        return ends(pod) ? Optional.of(defaultRunDuration) : Optional.empty();
    }

    static int exitCode(Pod pod) {
        Optional<String> annotation = annotation(pod, SimulatedAnnotations.EXIT_CODE);
        if (annotation.isEmpty()) {
            return 0;
        }
        try {
            return Integer.parseInt(annotation.get().trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static Optional<String> annotation(Pod pod, String key) {
        Map<String, String> annotations = pod.getMetadata().getAnnotations();
        return annotations == null ? Optional.empty() : Optional.ofNullable(annotations.get(key));
    }

    /** When the current run of the containers began: the newest running start, else the pod's start. */
    private static Instant containersStartedAt(Pod pod) {
        Instant latest = null;
        for (ContainerStatus status : containerStatuses(pod)) {
            if (status.getState() != null && status.getState().getRunning() != null && status.getState().getRunning().getStartedAt() != null) {
                Instant started = parse(status.getState().getRunning().getStartedAt());
                if (latest == null || started.isAfter(latest)) {
                    latest = started;
                }
            }
        }
        if (latest != null) {
            return latest;
        }
        String startTime = pod.getStatus().getStartTime();
        return startTime == null ? Instant.EPOCH : parse(startTime);
    }

    private PodStatus running(Pod pod, String hostIp, String podIp, Instant now) {
        String time = Timestamps.format(now);
        List<ContainerStatus> initStatuses = new ArrayList<>();
        for (Container container : initContainers(pod)) {
            boolean sidecar = "Always".equals(container.getRestartPolicy());
            ContainerState state = sidecar
                    ? new ContainerStateBuilder().withNewRunning().withStartedAt(time).endRunning().build()
                    : new ContainerStateBuilder().withNewTerminated().withExitCode(0).withReason("Completed").withStartedAt(time).withFinishedAt(time)
                            .withContainerID(containerId(pod, container.getName(), 0)).endTerminated().build();
            initStatuses.add(containerStatus(pod, container, state, true, sidecar, 0, null));
        }
        List<ContainerStatus> statuses = new ArrayList<>();
        for (Container container : containers(pod)) {
            ContainerState state = new ContainerStateBuilder().withNewRunning().withStartedAt(time).endRunning().build();
            statuses.add(containerStatus(pod, container, state, true, true, 0, null));
        }
        List<PodCondition> conditions = new ArrayList<>();
        conditions.add(condition("PodReadyToStartContainers", "True", null, time));
        conditions.add(condition("Initialized", "True", null, time));
        conditions.add(readyCondition(pod, time, "Ready"));
        conditions.add(condition("ContainersReady", "True", null, time));
        conditions.add(scheduledCondition(pod, time));
        List<PodCondition> current = pod.getStatus() == null ? null : pod.getStatus().getConditions();
        return new PodStatusBuilder()
                .withPhase(RUNNING)
                .withConditions(mergeConditions(current, conditions))
                .withHostIP(hostIp)
                .withHostIPs(new HostIP(hostIp))
                .withPodIP(podIp)
                .withPodIPs(new PodIP(podIp))
                .withStartTime(time)
                .withInitContainerStatuses(initStatuses)
                .withContainerStatuses(statuses)
                .build();
    }

    private static PodStatus restarted(Pod pod, int exitCode, Instant now) {
        String time = Timestamps.format(now);
        List<ContainerStatus> statuses = new ArrayList<>();
        for (Container container : containers(pod)) {
            Optional<ContainerStatus> previous = previousStatus(pod, container.getName());
            int restarts = previous.map(ContainerStatus::getRestartCount).orElse(0);
            ContainerState lastState = new ContainerStateBuilder().withNewTerminated()
                    .withExitCode(exitCode).withReason(exitCode == 0 ? "Completed" : "Error")
                    .withStartedAt(previous.map(PodLifecycle::runningSince).orElse(time)).withFinishedAt(time)
                    .withContainerID(containerId(pod, container.getName(), restarts))
                    .endTerminated().build();
            ContainerState state = new ContainerStateBuilder().withNewRunning().withStartedAt(time).endRunning().build();
            statuses.add(containerStatus(pod, container, state, true, true, restarts + 1, lastState));
        }
        return new PodStatusBuilder(pod.getStatus()).withContainerStatuses(statuses).build();
    }

    /** Every container terminated with the exit code; the phase follows from it (upstream's getPhase for ended pods). */
    static PodStatus finished(Pod pod, int exitCode, Instant now) {
        String time = Timestamps.format(now);
        List<ContainerStatus> initStatuses = new ArrayList<>();
        for (Container container : initContainers(pod)) {
            Optional<ContainerStatus> previous = previousStatus(pod, container.getName(), true);
            if ("Always".equals(container.getRestartPolicy())) {
                initStatuses.add(terminated(pod, container, previous, 0, time));
            } else {
                previous.ifPresent(initStatuses::add);
            }
        }
        List<ContainerStatus> statuses = new ArrayList<>();
        for (Container container : containers(pod)) {
            statuses.add(terminated(pod, container, previousStatus(pod, container.getName()), exitCode, time));
        }
        List<PodCondition> conditions = new ArrayList<>();
        conditions.add(condition("PodReadyToStartContainers", "False", null, time));
        conditions.add(condition("Ready", "False", "PodCompleted", time));
        conditions.add(condition("ContainersReady", "False", "PodCompleted", time));
        return new PodStatusBuilder(pod.getStatus())
                .withPhase(exitCode == 0 ? SUCCEEDED : FAILED)
                .withConditions(mergeConditions(pod.getStatus().getConditions(), conditions))
                .withInitContainerStatuses(initStatuses)
                .withContainerStatuses(statuses)
                .build();
    }

    private static ContainerStatus terminated(Pod pod, Container container, Optional<ContainerStatus> previous, int exitCode, String time) {
        int restarts = previous.map(ContainerStatus::getRestartCount).orElse(0);
        ContainerState state = new ContainerStateBuilder().withNewTerminated()
                .withExitCode(exitCode).withReason(exitCode == 0 ? "Completed" : "Error")
                .withStartedAt(previous.map(PodLifecycle::runningSince).orElse(time)).withFinishedAt(time)
                .withContainerID(containerId(pod, container.getName(), restarts))
                .endTerminated().build();
        return containerStatus(pod, container, state, false, false, restarts, previous.map(ContainerStatus::getLastState).orElse(null));
    }

    /**
     * A running pod whose Ready or ContainersReady condition is not what its containers and readiness gates say gets
     * them written again, as the kubelet's status manager reconciles: after its node was NotReady (the node lifecycle
     * controller marks the pods not ready) or when a readiness gate's condition changed.
     */
    private static Optional<PodStatus> readinessRestored(Pod pod, Instant now) {
        String time = Timestamps.format(now);
        List<PodCondition> current = pod.getStatus().getConditions();
        List<PodCondition> replacements = new ArrayList<>();
        PodCondition ready = readyCondition(pod, time, "Ready");
        if (!findCondition(current, "Ready").map(PodCondition::getStatus).orElse("").equals(ready.getStatus())) {
            replacements.add(ready);
        }
        if (!"True".equals(findCondition(current, "ContainersReady").map(PodCondition::getStatus).orElse(""))) {
            replacements.add(condition("ContainersReady", "True", null, time));
        }
        if (replacements.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new PodStatusBuilder(pod.getStatus()).withConditions(mergeConditions(current, replacements)).build());
    }

    /** Ready is True once the containers are, unless a readiness gate's condition is not True (upstream's rule). */
    private static PodCondition readyCondition(Pod pod, String time, String type) {
        List<PodReadinessGate> gates = pod.getSpec().getReadinessGates();
        if (gates != null) {
            List<PodCondition> conditions = pod.getStatus() == null ? List.of() : pod.getStatus().getConditions();
            for (PodReadinessGate gate : gates) {
                Optional<PodCondition> gateCondition = findCondition(conditions, gate.getConditionType());
                if (gateCondition.isEmpty()) {
                    return condition(type, "False", "ReadinessGatesNotReady",
                            "corresponding condition of pod readiness gate \"" + gate.getConditionType() + "\" does not exist.", time);
                }
                if (!"True".equals(gateCondition.get().getStatus())) {
                    return condition(type, "False", "ReadinessGatesNotReady",
                            "the status of pod readiness gate \"" + gate.getConditionType() + "\" is not \"True\", but " + gateCondition.get().getStatus(),
                            time);
                }
            }
        }
        return condition(type, "True", null, time);
    }

    private static PodCondition scheduledCondition(Pod pod, String time) {
        Optional<PodCondition> scheduled = findCondition(pod.getStatus() == null ? null : pod.getStatus().getConditions(), "PodScheduled");
        if (scheduled.isPresent() && "True".equals(scheduled.get().getStatus())) {
            return scheduled.get();
        }
        return condition("PodScheduled", "True", null, time);
    }

    private static List<PodCondition> mergeConditions(List<PodCondition> current, List<PodCondition> replacements) {
        List<PodCondition> merged = new ArrayList<>();
        if (current != null) {
            for (PodCondition condition : current) {
                if (replacements.stream().noneMatch(replacement -> replacement.getType().equals(condition.getType()))) {
                    merged.add(condition);
                }
            }
        }
        merged.addAll(replacements);
        return merged;
    }

    private static Optional<PodCondition> findCondition(List<PodCondition> conditions, String type) {
        return conditions == null ? Optional.empty() : conditions.stream().filter(condition -> type.equals(condition.getType())).findFirst();
    }

    private static PodCondition condition(String type, String status, String reason, String time) {
        return condition(type, status, reason, null, time);
    }

    private static PodCondition condition(String type, String status, String reason, String message, String time) {
        return new PodConditionBuilder().withType(type).withStatus(status).withReason(reason).withMessage(message)
                .withLastTransitionTime(time).withLastProbeTime(null).build();
    }

    private static ContainerStatus containerStatus(Pod pod, Container container, ContainerState state, boolean ready, boolean started,
            int restartCount, ContainerState lastState) {
        boolean running = state.getRunning() != null;
        return new ContainerStatusBuilder()
                .withName(container.getName())
                .withImage(container.getImage())
                .withImageID(imageId(container.getImage()))
                .withContainerID(running ? containerId(pod, container.getName(), restartCount) : state.getTerminated().getContainerID())
                .withReady(ready)
                .withStarted(started)
                .withRestartCount(restartCount)
                .withState(state)
                .withLastState(lastState == null ? new ContainerState() : lastState)
                .build();
    }

    private static List<Container> containers(Pod pod) {
        return pod.getSpec().getContainers() == null ? List.of() : pod.getSpec().getContainers();
    }

    private static List<Container> initContainers(Pod pod) {
        return pod.getSpec().getInitContainers() == null ? List.of() : pod.getSpec().getInitContainers();
    }

    private static Optional<ContainerStatus> previousStatus(Pod pod, String name) {
        return previousStatus(pod, name, false);
    }

    private static Optional<ContainerStatus> previousStatus(Pod pod, String name, boolean init) {
        List<ContainerStatus> statuses = init ? (pod.getStatus() == null ? null : pod.getStatus().getInitContainerStatuses()) : containerStatuses(pod);
        return statuses == null ? Optional.empty() : statuses.stream().filter(status -> name.equals(status.getName())).findFirst();
    }

    private static List<ContainerStatus> containerStatuses(Pod pod) {
        return pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null ? List.of() : pod.getStatus().getContainerStatuses();
    }

    private static String runningSince(ContainerStatus status) {
        ContainerState state = status.getState();
        if (state != null && state.getRunning() != null && state.getRunning().getStartedAt() != null) {
            return state.getRunning().getStartedAt();
        }
        if (state != null && state.getTerminated() != null && state.getTerminated().getStartedAt() != null) {
            return state.getTerminated().getStartedAt();
        }
        return null;
    }

    /** A stable fake digest of the image reference, in the {@code repository@sha256:…} shape of a real imageID. */
    static String imageId(String image) {
        if (image == null || image.isEmpty()) {
            return "";
        }
        if (image.contains("@")) {
            return image;
        }
        if (IMAGE_IDS.size() >= MAX_REMEMBERED_IMAGE_IDS) {
            IMAGE_IDS.clear();
        }
        return IMAGE_IDS.computeIfAbsent(image, PodLifecycle::digestImageId);
    }

    private static String digestImageId(String image) {
        String repository = image;
        int lastSlash = image.lastIndexOf('/');
        int tagColon = image.lastIndexOf(':');
        if (tagColon > lastSlash) {
            repository = image.substring(0, tagColon);
        }
        if (!repository.contains("/")) {
            repository = "docker.io/library/" + repository;
        } else if (!REGISTRY_HOST.matcher(repository.substring(0, repository.indexOf('/'))).matches()) {
            repository = "docker.io/" + repository;
        }
        return repository + "@sha256:" + sha256(image);
    }

    private static String containerId(Pod pod, String containerName, int restartCount) {
        return CONTAINER_ID_SCHEME + sha256(pod.getMetadata().getUid() + "/" + containerName + "/" + restartCount);
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    private static Instant parse(String timestamp) {
        try {
            return Timestamps.parse(timestamp);
        } catch (IllegalArgumentException e) {
            return Instant.EPOCH;
        }
    }
}
