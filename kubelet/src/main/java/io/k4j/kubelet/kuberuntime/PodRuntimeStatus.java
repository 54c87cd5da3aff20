package io.k4j.kubelet.kuberuntime;

import static java.util.Objects.requireNonNull;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Everything the runtime has of one pod: its sandboxes (newest first) and container instances (newest first), as
 * upstream's {@code kubecontainer.PodStatus}. Immutable.
 */
public record PodRuntimeStatus(
        String uid,
        String name,
        String namespace,
        List<SandboxRuntimeStatus> sandboxes,
        List<ContainerRuntimeStatus> containers) {
    public PodRuntimeStatus {
        requireNonNull(uid, "uid is null");
        requireNonNull(name, "name is null");
        requireNonNull(namespace, "namespace is null");
        sandboxes = sandboxes.stream().sorted(Comparator.comparing(SandboxRuntimeStatus::createdAt).reversed()).toList();
        containers = containers.stream()
                .sorted(Comparator.comparing(ContainerRuntimeStatus::createdAt).reversed())
                .toList();
    }

    public static PodRuntimeStatus empty(String uid, String name, String namespace) {
        return new PodRuntimeStatus(uid, name, namespace, List.of(), List.of());
    }

    /** The newest sandbox. */
    public Optional<SandboxRuntimeStatus> latestSandbox() {
        return sandboxes.stream().findFirst();
    }

    /** The pod IPs of the newest sandbox, if it is ready. */
    public List<String> podIps() {
        return latestSandbox().filter(SandboxRuntimeStatus::ready).map(SandboxRuntimeStatus::ips).orElse(List.of());
    }

    /** The newest instance of the container {@code name}, in any sandbox. */
    public Optional<ContainerRuntimeStatus> latest(String containerName) {
        return containers.stream().filter(container -> container.name().equals(containerName)).findFirst();
    }

    /**
     * The newest instance of {@code containerName} that has exited. Restart backoff counts from its finish, as
     * upstream's {@code doBackOff}: a container killed for a failed liveness probe is still running in the status the
     * kill was decided on, and its predecessor's exit is what keeps the restarts from following each other at once.
     */
    public Optional<ContainerRuntimeStatus> latestExited(String containerName) {
        return containers.stream().filter(container -> container.name().equals(containerName) && container.exited()).findFirst();
    }

    /** The instance before the newest one of {@code containerName} ({@code lastState}). */
    public Optional<ContainerRuntimeStatus> previous(String containerName) {
        return containers.stream().filter(container -> container.name().equals(containerName)).skip(1).findFirst();
    }

    /** Containers that still run (in any sandbox). */
    public List<ContainerRuntimeStatus> runningContainers() {
        return containers.stream().filter(ContainerRuntimeStatus::running).toList();
    }

    /** Whether nothing of the pod runs any more: no running container, no ready sandbox. */
    public boolean isStopped() {
        return runningContainers().isEmpty() && sandboxes.stream().noneMatch(SandboxRuntimeStatus::ready);
    }
}
