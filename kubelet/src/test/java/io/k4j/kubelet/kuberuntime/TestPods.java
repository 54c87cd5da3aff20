package io.k4j.kubelet.kuberuntime;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.k4j.kubelet.env.ContainerEnvironment;
import io.k4j.kubelet.env.EnvironmentVariable;
import io.k4j.kubelet.lifecycle.HookRunner;
import io.k4j.kubelet.volume.ContainerMount;
import io.k4j.kubelet.volume.PodVolumes;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Pods, runtime statuses and pod-config stand-ins for kubelet unit tests. Stateless. */
public final class TestPods {
    public static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private TestPods() {}

    public static Pod pod(String name, String restartPolicy, Container... containers) {
        return new PodBuilder()
                .withNewMetadata().withName(name).withNamespace("default").withUid("uid-" + name).endMetadata()
                .withNewSpec().withRestartPolicy(restartPolicy).withNodeName("node1").withContainers(containers)
                .endSpec()
                .build();
    }

    public static Container container(String name, String... command) {
        return new ContainerBuilder().withName(name).withImage("busybox:1.36").withCommand(command).build();
    }

    public static Container withCpu(Container container, String cpu) {
        return new ContainerBuilder(container).withNewResources().addToRequests("cpu", new Quantity(cpu)).endResources()
                .build();
    }

    public static SandboxRuntimeStatus readySandbox(String id, int attempt) {
        return new SandboxRuntimeStatus(id, attempt, true, T0.plusSeconds(attempt), List.of("10.42.0.5"));
    }

    public static SandboxRuntimeStatus deadSandbox(String id, int attempt) {
        return new SandboxRuntimeStatus(id, attempt, false, T0.plusSeconds(attempt), List.of());
    }

    public static ContainerRuntimeStatus running(String id, Container spec, int restartCount, Instant createdAt) {
        return new ContainerRuntimeStatus(id, spec.getName(), "s1", ContainerRuntimeStatus.State.RUNNING, createdAt,
                Optional.of(createdAt.plusMillis(100)), Optional.empty(), 0, "", "", "docker.io/library/busybox:1.36",
                "sha256:abc", ContainerHashes.hash(spec), restartCount, false);
    }

    public static ContainerRuntimeStatus exited(String id, Container spec, int exitCode, int restartCount,
            Instant createdAt, boolean init) {
        return new ContainerRuntimeStatus(id, spec.getName(), "s1", ContainerRuntimeStatus.State.EXITED, createdAt,
                Optional.of(createdAt.plusMillis(100)), Optional.of(createdAt.plusSeconds(1)), exitCode,
                exitCode == 0 ? "Completed" : "Error", "", "docker.io/library/busybox:1.36", "sha256:abc",
                ContainerHashes.hash(spec), restartCount, init);
    }

    public static PodRuntimeStatus status(Pod pod, List<SandboxRuntimeStatus> sandboxes,
            List<ContainerRuntimeStatus> containers) {
        return new PodRuntimeStatus(pod.getMetadata().getUid(), pod.getMetadata().getName(), "default", sandboxes,
                containers);
    }

    /** An environment of only the containers' literal values (the real resolver is kubelet-podconfig's). */
    public static ContainerEnvironment literalEnvironment() {
        return (pod, container, addresses) -> {
            List<EnvironmentVariable> variables = new ArrayList<>();
            if (container.getEnv() != null) {
                container.getEnv().stream().filter(env -> env.getValue() != null)
                        .forEach(env -> variables.add(new EnvironmentVariable(env.getName(), env.getValue())));
            }
            return variables;
        };
    }

    /** A pod without volumes. */
    public static PodVolumes noVolumes(String uid) {
        return new PodVolumes() {
            @Override
            public String podUid() {
                return uid;
            }

            @Override
            public Map<String, Path> volumePaths() {
                return Map.of();
            }

            @Override
            public List<ContainerMount> mountsFor(Container container, List<EnvironmentVariable> environment,
                    List<String> podIps) {
                return List.of();
            }
        };
    }

    /** Containers without hooks. */
    public static HookRunner noHooks() {
        return new HookRunner() {
            @Override
            public Optional<String> runPostStart(Pod pod, Container container, String containerId, List<String> podIps) {
                return Optional.empty();
            }

            @Override
            public Duration runPreStop(Pod pod, Container container, String containerId, List<String> podIps,
                    Duration gracePeriod) {
                return Duration.ZERO;
            }
        };
    }
}
