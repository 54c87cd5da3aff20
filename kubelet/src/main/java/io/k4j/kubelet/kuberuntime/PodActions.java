package io.k4j.kubelet.kuberuntime;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a sync must change for a pod to match its spec, as upstream's {@code computePodActions}. Immutable.
 *
 * @param killPod stop every container and sandbox of the pod first (its sandbox is gone or must be re-created, or
 *     nothing is left to run)
 * @param createSandbox create a new sandbox with {@code sandboxAttempt}
 * @param sandboxId the sandbox to start containers in when no new one is created
 * @param nextInitContainer the init container to start next
 * @param initFailed an init container failed and the pod must not restart it (restartPolicy Never): the pod failed
 * @param containersToStart regular containers to (re)start, in spec order
 * @param containersToKill running container instances to stop, by runtime id, with the reason shown in the
 *     Killing event
 * @param containersToRemove container instances never started that are in the way of a new instance
 */
public record PodActions(
        boolean killPod,
        boolean createSandbox,
        int sandboxAttempt,
        Optional<String> sandboxId,
        Optional<String> nextInitContainer,
        boolean initFailed,
        List<String> containersToStart,
        Map<String, String> containersToKill,
        List<String> containersToRemove) {
    public PodActions {
        requireNonNull(sandboxId, "sandboxId is null");
        requireNonNull(nextInitContainer, "nextInitContainer is null");
        containersToStart = List.copyOf(containersToStart);
        containersToKill = Map.copyOf(containersToKill);
        containersToRemove = List.copyOf(containersToRemove);
    }

    /**
     * The actions for {@code pod} given what the runtime has of it.
     *
     * @param unhealthy container ids whose liveness or startup probe failed (they are killed and restarted as the
     *     restart policy says)
     */
    public static PodActions compute(Pod pod, PodRuntimeStatus status, Set<String> unhealthy) {
        String restartPolicy = restartPolicy(pod);
        Optional<SandboxRuntimeStatus> sandbox = status.latestSandbox();
        boolean sandboxReady = sandbox.map(SandboxRuntimeStatus::ready).orElse(false);
        if (!sandboxReady) {
            int attempt = sandbox.map(existing -> existing.attempt() + 1).orElse(0);
            boolean killFirst = sandbox.isPresent() || !status.runningContainers().isEmpty();
            if (restartPolicy.equals("Never") && attempt != 0 && !status.containers().isEmpty()) {
                // The pod ran and must not run again; only make sure nothing of it is left running.
                return new PodActions(killFirst, false, attempt, Optional.empty(), Optional.empty(), false, List.of(),
                        Map.of(), List.of());
            }
            List<String> toStart = new ArrayList<>();
            for (Container container : pod.getSpec().getContainers()) {
                if (restartPolicy.equals("OnFailure") && succeeded(status, container.getName())) {
                    continue;
                }
                toStart.add(container.getName());
            }
            if (toStart.isEmpty()) {
                return new PodActions(killFirst, false, attempt, Optional.empty(), Optional.empty(), false, List.of(),
                        Map.of(), List.of());
            }
            List<Container> initContainers = initContainers(pod);
            if (!initContainers.isEmpty()) {
                return new PodActions(killFirst, true, attempt, Optional.empty(),
                        Optional.of(initContainers.get(0).getName()), false, List.of(), Map.of(), List.of());
            }
            return new PodActions(killFirst, true, attempt, Optional.empty(), Optional.empty(), false, toStart,
                    Map.of(), List.of());
        }

        String sandboxId = sandbox.get().id();
        Map<String, String> toKill = new LinkedHashMap<>();
        List<String> toRemove = new ArrayList<>();
        // Init containers run one at a time, in order, each to success, before any regular container.
        for (Container init : initContainers(pod)) {
            Optional<ContainerRuntimeStatus> latest = status.latest(init.getName());
            if (latest.isEmpty()) {
                return initStep(sandboxId, Optional.of(init.getName()), false, toRemove);
            }
            ContainerRuntimeStatus instance = latest.get();
            if (instance.running()) {
                if (unhealthy.contains(instance.id())) {
                    toKill.put(instance.id(), "Container " + init.getName() + " failed liveness probe");
                }
                return new PodActions(false, false, 0, Optional.of(sandboxId), Optional.empty(), false, List.of(),
                        toKill, toRemove);
            }
            if (instance.exited() && instance.exitCode() == 0) {
                continue;
            }
            if (instance.state() == ContainerRuntimeStatus.State.CREATED
                    || instance.state() == ContainerRuntimeStatus.State.UNKNOWN) {
                toRemove.add(instance.id());
                return initStep(sandboxId, Optional.of(init.getName()), false, toRemove);
            }
            if (restartPolicy.equals("Never")) {
                return initStep(sandboxId, Optional.empty(), true, toRemove);
            }
            return initStep(sandboxId, Optional.of(init.getName()), false, toRemove);
        }

        List<String> toStart = new ArrayList<>();
        int keep = 0;
        for (Container container : pod.getSpec().getContainers()) {
            Optional<ContainerRuntimeStatus> latest = status.latest(container.getName());
            if (latest.isPresent() && latest.get().running()) {
                ContainerRuntimeStatus instance = latest.get();
                String reason = null;
                if (!instance.hash().isEmpty() && !instance.hash().equals(ContainerHashes.hash(container))) {
                    reason = "Container " + container.getName() + " definition changed";
                }
                else if (unhealthy.contains(instance.id())) {
                    reason = "Container " + container.getName() + " failed liveness probe";
                }
                if (reason == null) {
                    keep++;
                    continue;
                }
                toKill.put(instance.id(), reason + (restartPolicy.equals("Never") ? "" : ", will be restarted"));
                if (!restartPolicy.equals("Never")) {
                    toStart.add(container.getName());
                }
                continue;
            }
            if (latest.isPresent() && (latest.get().state() == ContainerRuntimeStatus.State.CREATED
                    || latest.get().state() == ContainerRuntimeStatus.State.UNKNOWN)) {
                toRemove.add(latest.get().id());
            }
            if (shouldRestart(restartPolicy, latest)) {
                toStart.add(container.getName());
            }
        }
        // Kill what runs but is not in the spec (a container removed from the spec cannot happen; stray ones can).
        for (ContainerRuntimeStatus running : status.runningContainers()) {
            boolean known = pod.getSpec().getContainers().stream().anyMatch(c -> c.getName().equals(running.name()))
                    || initContainers(pod).stream().anyMatch(c -> c.getName().equals(running.name()));
            boolean current = status.latest(running.name()).map(latest -> latest.id().equals(running.id())).orElse(false);
            if (!known || !current || !running.podSandboxId().equals(sandboxId)) {
                toKill.put(running.id(), "Container " + running.name() + " is not part of the pod any more");
            }
        }
        if (toStart.isEmpty() && keep == 0) {
            // Nothing runs and nothing will: stop the sandbox, which frees the pod's IP, as upstream.
            return new PodActions(true, false, 0, Optional.of(sandboxId), Optional.empty(), false, List.of(), toKill,
                    toRemove);
        }
        return new PodActions(false, false, 0, Optional.of(sandboxId), Optional.empty(), false, toStart, toKill,
                toRemove);
    }

    private static PodActions initStep(String sandboxId, Optional<String> next, boolean failed, List<String> toRemove) {
        return new PodActions(false, false, 0, Optional.of(sandboxId), next, failed, List.of(), Map.of(), toRemove);
    }

    /** Upstream's {@code ShouldContainerBeRestarted} for a container that does not run. */
    static boolean shouldRestart(String restartPolicy, Optional<ContainerRuntimeStatus> latest) {
        if (latest.isEmpty()) {
            return true;
        }
        ContainerRuntimeStatus instance = latest.get();
        if (instance.state() != ContainerRuntimeStatus.State.EXITED) {
            return true;
        }
        return switch (restartPolicy) {
            case "Never" -> false;
            case "OnFailure" -> instance.exitCode() != 0;
            default -> true;
        };
    }

    private static boolean succeeded(PodRuntimeStatus status, String name) {
        return status.latest(name).map(instance -> instance.exited() && instance.exitCode() == 0).orElse(false);
    }

    public static String restartPolicy(Pod pod) {
        String policy = pod.getSpec().getRestartPolicy();
        return policy == null || policy.isEmpty() ? "Always" : policy;
    }

    static List<Container> initContainers(Pod pod) {
        return pod.getSpec().getInitContainers() == null ? List.of() : pod.getSpec().getInitContainers();
    }
}
