package io.k4j.kubelet.status;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.HostIP;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.k4j.api.codec.Timestamps;
import io.k4j.kubelet.kuberuntime.ContainerRuntimeStatus;
import io.k4j.kubelet.kuberuntime.ContainerWaiting;
import io.k4j.kubelet.kuberuntime.PodActions;
import io.k4j.kubelet.kuberuntime.PodRuntimeStatus;
import io.k4j.kubelet.kuberuntime.QosClasses;
import io.k4j.kubelet.kuberuntime.SandboxConfigs;
import io.k4j.kubelet.prober.ContainerProbeStatus;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A pod's API status from what the runtime has of it, as upstream's {@code generateAPIPodStatus}: phase
 * ({@code getPhase}), the conditions PodReadyToStartContainers, Initialized, Ready, ContainersReady (PodScheduled is
 * kept), container statuses with state and lastState, restart counts, image IDs, pod and host IPs, start time and QoS
 * class. Stateless and thread-safe.
 */
public final class PodStatusGenerator {
    /** Probe results of a container instance. */
    @FunctionalInterface
    public interface ProbeResults {
        ContainerProbeStatus status(String podUid, String containerName, String containerId);
    }

    private PodStatusGenerator() {}

    /**
     * @param waiting why containers the last sync could not start wait (ErrImagePull, CrashLoopBackOff, …)
     * @param hostIps the node's IPs
     */
    public static PodStatus generate(Pod pod, PodRuntimeStatus runtime, Map<String, ContainerWaiting> waiting,
            ProbeResults probes, List<String> hostIps, Instant now) {
        PodStatus previous = pod.getStatus() == null ? new PodStatus() : pod.getStatus();
        String uid = pod.getMetadata().getUid();
        List<Container> initContainers = pod.getSpec().getInitContainers() == null ? List.of()
                : pod.getSpec().getInitContainers();

        boolean initialized = true;
        List<String> incompleteInit = new ArrayList<>();
        boolean initFailed = false;
        List<ContainerStatus> initStatuses = new ArrayList<>();
        for (Container container : initContainers) {
            ContainerStatus status = containerStatus(uid, container, true, false, runtime, waiting, probes);
            initStatuses.add(status);
            Optional<ContainerRuntimeStatus> latest = runtime.latest(container.getName());
            boolean succeeded = latest.map(instance -> instance.exited() && instance.exitCode() == 0).orElse(false);
            if (!succeeded) {
                initialized = false;
                incompleteInit.add(container.getName());
                if (latest.map(ContainerRuntimeStatus::exited).orElse(false)
                        && PodActions.restartPolicy(pod).equals("Never")) {
                    initFailed = true;
                }
            }
        }
        List<ContainerStatus> statuses = new ArrayList<>();
        List<String> unready = new ArrayList<>();
        for (Container container : pod.getSpec().getContainers()) {
            ContainerStatus status = containerStatus(uid, container, false, initialized, runtime, waiting, probes);
            statuses.add(status);
            if (!Boolean.TRUE.equals(status.getReady())) {
                unready.add(container.getName());
            }
        }

        String phase = initFailed ? "Failed" : phase(pod, initialized, runtime);
        boolean terminal = phase.equals("Succeeded") || phase.equals("Failed");
        List<PodCondition> conditions = new ArrayList<>();
        boolean sandboxReady = runtime.latestSandbox().map(sandbox -> sandbox.ready()).orElse(false);
        conditions.add(condition(previous, "PodReadyToStartContainers", sandboxReady, null, null, now));
        conditions.add(condition(previous, "Initialized", initialized,
                initialized ? null : "ContainersNotInitialized",
                initialized ? null : "containers with incomplete status: " + bracketed(incompleteInit), now));
        boolean containersReady = unready.isEmpty() && !terminal;
        String notReadyReason = terminal ? "PodCompleted" : "ContainersNotReady";
        String notReadyMessage = terminal ? null : "containers with unready status: " + bracketed(unready);
        conditions.add(condition(previous, "Ready", containersReady, containersReady ? null : notReadyReason,
                containersReady ? null : notReadyMessage, now));
        conditions.add(condition(previous, "ContainersReady", containersReady, containersReady ? null : notReadyReason,
                containersReady ? null : notReadyMessage, now));
        if (previous.getConditions() != null) {
            previous.getConditions().stream()
                    .filter(existing -> existing.getType().equals("PodScheduled"))
                    .findFirst()
                    .ifPresent(scheduled -> conditions.add(0, scheduled));
        }

        List<String> podIps = SandboxConfigs.hostNetwork(pod) ? hostIps : runtime.podIps();
        if (podIps.isEmpty() && previous.getPodIPs() != null && !terminal && sandboxReady) {
            podIps = previous.getPodIPs().stream().map(PodIP::getIp).toList();
        }
        PodStatusBuilder status = new PodStatusBuilder()
                .withPhase(phase)
                .withConditions(conditions)
                .withHostIP(hostIps.isEmpty() ? null : hostIps.get(0))
                .withHostIPs(hostIps.stream().map(ip -> new HostIP(ip)).toList())
                .withPodIP(podIps.isEmpty() ? null : podIps.get(0))
                .withPodIPs(podIps.stream().map(ip -> new PodIP(ip)).toList())
                .withStartTime(previous.getStartTime() != null ? previous.getStartTime() : Timestamps.format(now))
                .withQosClass(QosClasses.of(pod))
                .withContainerStatuses(statuses)
                .withInitContainerStatuses(initStatuses.isEmpty() ? null : initStatuses);
        if (previous.getNominatedNodeName() != null) {
            status.withNominatedNodeName(previous.getNominatedNodeName());
        }
        return status.build();
    }

    /** Upstream's {@code getPhase}. */
    static String phase(Pod pod, boolean initialized, PodRuntimeStatus runtime) {
        if (!initialized) {
            return "Pending";
        }
        int running = 0;
        int waiting = 0;
        int stopped = 0;
        int succeeded = 0;
        int unknown = 0;
        for (Container container : pod.getSpec().getContainers()) {
            Optional<ContainerRuntimeStatus> latest = runtime.latest(container.getName());
            if (latest.isEmpty()) {
                unknown++;
                continue;
            }
            ContainerRuntimeStatus instance = latest.get();
            switch (instance.state()) {
                case RUNNING -> running++;
                case EXITED -> {
                    stopped++;
                    if (instance.exitCode() == 0) {
                        succeeded++;
                    }
                }
                case CREATED, UNKNOWN -> {
                    if (runtime.previous(container.getName()).isPresent()) {
                        stopped++;
                    }
                    else {
                        waiting++;
                    }
                }
            }
        }
        if (waiting > 0) {
            return "Pending";
        }
        if (running > 0 && unknown == 0) {
            return "Running";
        }
        if (running == 0 && stopped > 0 && unknown == 0) {
            String policy = PodActions.restartPolicy(pod);
            if (policy.equals("Always")) {
                return "Running";
            }
            if (stopped == succeeded) {
                return "Succeeded";
            }
            if (policy.equals("Never")) {
                return "Failed";
            }
            return "Running";
        }
        return "Pending";
    }

    private static ContainerStatus containerStatus(String podUid, Container container, boolean init,
            boolean initialized, PodRuntimeStatus runtime, Map<String, ContainerWaiting> waiting, ProbeResults probes) {
        Optional<ContainerRuntimeStatus> latest = runtime.latest(container.getName());
        ContainerWaiting reason = waiting.get(container.getName());
        ContainerStatusBuilder status = new ContainerStatusBuilder()
                .withName(container.getName())
                .withImage(container.getImage())
                .withImageID("")
                .withReady(false)
                .withStarted(false)
                .withRestartCount(0);
        if (latest.isEmpty()) {
            ContainerWaiting shown = reason != null ? reason
                    : new ContainerWaiting(init || !initialized ? "PodInitializing" : "ContainerCreating", "");
            return status.withState(waitingState(shown)).withLastState(new ContainerState()).build();
        }
        ContainerRuntimeStatus instance = latest.get();
        status.withContainerID(instance.containerId())
                .withImage(instance.image().isEmpty() ? container.getImage() : instance.image())
                .withImageID(instance.imageRef())
                .withRestartCount(instance.restartCount());
        Optional<ContainerRuntimeStatus> previous = runtime.previous(container.getName());
        switch (instance.state()) {
            case RUNNING -> {
                ContainerProbeStatus probe = probes.status(podUid, container.getName(), instance.id());
                status.withState(new ContainerStateBuilder().withNewRunning()
                                .withStartedAt(instance.startedAt().map(Timestamps::format).orElse(null))
                                .endRunning().build())
                        .withLastState(previous.map(PodStatusGenerator::terminatedState).orElse(new ContainerState()))
                        .withStarted(probe.started())
                        .withReady(!init && probe.ready());
                if (init) {
                    status.withReady(false);
                }
            }
            case EXITED -> {
                if (reason != null) {
                    status.withState(waitingState(reason)).withLastState(terminatedState(instance));
                }
                else {
                    status.withState(terminatedState(instance))
                            .withLastState(previous.map(PodStatusGenerator::terminatedState).orElse(new ContainerState()));
                }
                if (init && instance.exitCode() == 0) {
                    status.withReady(true);
                }
            }
            case CREATED, UNKNOWN -> status
                    .withState(waitingState(reason != null ? reason : new ContainerWaiting("ContainerCreating", "")))
                    .withLastState(previous.map(PodStatusGenerator::terminatedState).orElse(new ContainerState()));
        }
        return status.build();
    }

    private static ContainerState waitingState(ContainerWaiting waiting) {
        return new ContainerStateBuilder().withNewWaiting()
                .withReason(waiting.reason())
                .withMessage(waiting.message().isEmpty() ? null : waiting.message())
                .endWaiting()
                .build();
    }

    private static ContainerState terminatedState(ContainerRuntimeStatus instance) {
        String reason = instance.reason().isEmpty() ? (instance.exitCode() == 0 ? "Completed" : "Error")
                : instance.reason();
        return new ContainerStateBuilder().withNewTerminated()
                .withExitCode(instance.exitCode())
                .withReason(reason)
                .withMessage(instance.message().isEmpty() ? null : instance.message())
                .withStartedAt(instance.startedAt().map(Timestamps::format).orElse(null))
                .withFinishedAt(instance.finishedAt().map(Timestamps::format).orElse(null))
                .withContainerID(instance.containerId())
                .endTerminated()
                .build();
    }

    private static PodCondition condition(PodStatus previous, String type, boolean value, String reason,
            String message, Instant now) {
        String status = value ? "True" : "False";
        String transition = Timestamps.format(now);
        if (previous.getConditions() != null) {
            for (PodCondition existing : previous.getConditions()) {
                if (existing.getType().equals(type) && status.equals(existing.getStatus())
                        && existing.getLastTransitionTime() != null) {
                    transition = existing.getLastTransitionTime();
                }
            }
        }
        return new PodConditionBuilder()
                .withType(type)
                .withStatus(status)
                .withReason(reason)
                .withMessage(message)
                .withLastProbeTime(null)
                .withLastTransitionTime(transition)
                .build();
    }

    private static String bracketed(List<String> names) {
        return "[" + String.join(" ", names) + "]";
    }
}
