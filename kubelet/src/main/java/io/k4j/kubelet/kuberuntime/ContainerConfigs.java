package io.k4j.kubelet.kuberuntime;

import io.fabric8.kubernetes.api.model.Capabilities;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.k4j.kubelet.cri.v1.Capability;
import io.k4j.kubelet.cri.v1.ContainerConfig;
import io.k4j.kubelet.cri.v1.ContainerMetadata;
import io.k4j.kubelet.cri.v1.ImageSpec;
import io.k4j.kubelet.cri.v1.Int64Value;
import io.k4j.kubelet.cri.v1.KeyValue;
import io.k4j.kubelet.cri.v1.LinuxContainerConfig;
import io.k4j.kubelet.cri.v1.LinuxContainerResources;
import io.k4j.kubelet.cri.v1.LinuxContainerSecurityContext;
import io.k4j.kubelet.cri.v1.Mount;
import io.k4j.kubelet.env.EnvironmentVariable;
import io.k4j.kubelet.volume.ContainerMount;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A container's {@code ContainerConfig} as upstream's {@code generateContainerConfig}: command and args with
 * {@code $(VAR)} expansion, working directory, environment, mounts, labels and annotations (hash, restart count,
 * termination message settings), the log path {@code <name>/<restartCount>.log}, resources as cgroup values and the
 * security context. Stateless; thread-safe.
 */
public final class ContainerConfigs {
    /** Upstream's CFS period (100 ms) and the minimum cpu.shares. */
    private static final long CPU_PERIOD = 100_000;
    private static final long MIN_SHARES = 2;

    private ContainerConfigs() {}

    /**
     * @param imageRef the image id the image manager returned
     * @param memoryCapacity the node's memory in bytes, for Burstable OOM score adjustment
     */
    public static ContainerConfig build(Pod pod, Container container, boolean init, int restartCount, String imageRef,
            List<EnvironmentVariable> environment, List<ContainerMount> mounts, long memoryCapacity) {
        Map<String, String> variables = new LinkedHashMap<>();
        for (EnvironmentVariable variable : environment) {
            variables.put(variable.name(), variable.value());
        }
        ContainerConfig.Builder config = ContainerConfig.newBuilder()
                .setMetadata(ContainerMetadata.newBuilder().setName(container.getName()).setAttempt(restartCount))
                .setImage(ImageSpec.newBuilder().setImage(imageRef).setUserSpecifiedImage(container.getImage()))
                .setLogPath(container.getName() + "/" + restartCount + ".log")
                .setStdin(Boolean.TRUE.equals(container.getStdin()))
                .setStdinOnce(Boolean.TRUE.equals(container.getStdinOnce()))
                .setTty(Boolean.TRUE.equals(container.getTty()));
        if (container.getCommand() != null) {
            config.addAllCommand(container.getCommand().stream().map(value -> expand(value, variables)).toList());
        }
        if (container.getArgs() != null) {
            config.addAllArgs(container.getArgs().stream().map(value -> expand(value, variables)).toList());
        }
        if (container.getWorkingDir() != null) {
            config.setWorkingDir(container.getWorkingDir());
        }
        for (EnvironmentVariable variable : environment) {
            config.addEnvs(KeyValue.newBuilder().setKey(variable.name()).setValue(variable.value()));
        }
        for (ContainerMount mount : mounts) {
            config.addMounts(Mount.newBuilder()
                    .setContainerPath(mount.containerPath())
                    .setHostPath(mount.hostPath().toString())
                    .setReadonly(mount.readOnly())
                    .setPropagation(switch (mount.propagation()) {
                        case PRIVATE -> io.k4j.kubelet.cri.v1.MountPropagation.PROPAGATION_PRIVATE;
                        case HOST_TO_CONTAINER -> io.k4j.kubelet.cri.v1.MountPropagation.PROPAGATION_HOST_TO_CONTAINER;
                        case BIDIRECTIONAL -> io.k4j.kubelet.cri.v1.MountPropagation.PROPAGATION_BIDIRECTIONAL;
                    }));
        }
        config.putAllLabels(SandboxConfigs.podLabels(pod));
        config.putLabels(KubeletLabels.CONTAINER_NAME, container.getName());
        config.putAnnotations(KubeletLabels.CONTAINER_HASH, ContainerHashes.hash(container));
        config.putAnnotations(KubeletLabels.CONTAINER_RESTART_COUNT, Integer.toString(restartCount));
        config.putAnnotations(KubeletLabels.TERMINATION_MESSAGE_PATH, container.getTerminationMessagePath() == null
                ? "/dev/termination-log" : container.getTerminationMessagePath());
        config.putAnnotations(KubeletLabels.TERMINATION_MESSAGE_POLICY,
                container.getTerminationMessagePolicy() == null ? "File" : container.getTerminationMessagePolicy());
        long grace = pod.getSpec().getTerminationGracePeriodSeconds() == null ? 30
                : pod.getSpec().getTerminationGracePeriodSeconds();
        config.putAnnotations(KubeletLabels.POD_TERMINATION_GRACE_PERIOD, Long.toString(grace));
        if (container.getPorts() != null && !container.getPorts().isEmpty()) {
            config.putAnnotations(KubeletLabels.CONTAINER_PORTS, Serialization.asJson(container.getPorts()));
        }
        if (init) {
            config.putAnnotations(KubeletLabels.CONTAINER_IS_INIT, "true");
        }
        config.setLinux(LinuxContainerConfig.newBuilder()
                .setResources(resources(pod, container, memoryCapacity))
                .setSecurityContext(securityContext(pod, container)));
        return config.build();
    }

    /** cpu.shares from the cpu request, a CFS quota from the cpu limit, the memory limit, the OOM score. */
    static LinuxContainerResources resources(Pod pod, Container container, long memoryCapacity) {
        Map<String, Quantity> requests = container.getResources() == null || container.getResources().getRequests() == null
                ? Map.of() : container.getResources().getRequests();
        Map<String, Quantity> limits = container.getResources() == null || container.getResources().getLimits() == null
                ? Map.of() : container.getResources().getLimits();
        LinuxContainerResources.Builder resources = LinuxContainerResources.newBuilder();
        long cpuRequestMilli = milli(requests.containsKey("cpu") ? requests.get("cpu") : limits.get("cpu"));
        long shares = cpuRequestMilli == 0 ? MIN_SHARES : Math.max(MIN_SHARES, cpuRequestMilli * 1024 / 1000);
        resources.setCpuShares(shares);
        long cpuLimitMilli = milli(limits.get("cpu"));
        if (cpuLimitMilli > 0) {
            resources.setCpuPeriod(CPU_PERIOD);
            resources.setCpuQuota(Math.max(1000, cpuLimitMilli * CPU_PERIOD / 1000));
        }
        long memoryLimit = bytes(limits.get("memory"));
        if (memoryLimit > 0) {
            resources.setMemoryLimitInBytes(memoryLimit);
        }
        String qos = QosClasses.of(pod);
        long oomScoreAdjust;
        if (qos.equals(QosClasses.GUARANTEED)) {
            oomScoreAdjust = -997;
        }
        else if (qos.equals(QosClasses.BEST_EFFORT)) {
            oomScoreAdjust = 1000;
        }
        else {
            long memoryRequest = bytes(requests.containsKey("memory") ? requests.get("memory") : limits.get("memory"));
            long adjust = memoryCapacity <= 0 ? 999 : 1000 - (1000 * memoryRequest) / memoryCapacity;
            oomScoreAdjust = Math.max(2, Math.min(999, adjust));
        }
        resources.setOomScoreAdj(oomScoreAdjust);
        return resources.build();
    }

    private static LinuxContainerSecurityContext securityContext(Pod pod, Container container) {
        LinuxContainerSecurityContext.Builder security = LinuxContainerSecurityContext.newBuilder()
                .setNamespaceOptions(SandboxConfigs.namespaceOptions(pod));
        PodSecurityContext podSecurity = pod.getSpec().getSecurityContext();
        SecurityContext containerSecurity = container.getSecurityContext();
        Long runAsUser = containerSecurity != null && containerSecurity.getRunAsUser() != null
                ? containerSecurity.getRunAsUser()
                : podSecurity != null ? podSecurity.getRunAsUser() : null;
        Long runAsGroup = containerSecurity != null && containerSecurity.getRunAsGroup() != null
                ? containerSecurity.getRunAsGroup()
                : podSecurity != null ? podSecurity.getRunAsGroup() : null;
        if (runAsUser != null) {
            security.setRunAsUser(Int64Value.newBuilder().setValue(runAsUser));
        }
        if (runAsGroup != null) {
            security.setRunAsGroup(Int64Value.newBuilder().setValue(runAsGroup));
        }
        if (podSecurity != null) {
            if (podSecurity.getSupplementalGroups() != null) {
                security.addAllSupplementalGroups(podSecurity.getSupplementalGroups());
            }
            if (podSecurity.getFsGroup() != null) {
                security.addSupplementalGroups(podSecurity.getFsGroup());
            }
        }
        if (containerSecurity != null) {
            security.setPrivileged(Boolean.TRUE.equals(containerSecurity.getPrivileged()));
            security.setReadonlyRootfs(Boolean.TRUE.equals(containerSecurity.getReadOnlyRootFilesystem()));
            if (Boolean.FALSE.equals(containerSecurity.getAllowPrivilegeEscalation())) {
                security.setNoNewPrivs(true);
            }
            Capabilities capabilities = containerSecurity.getCapabilities();
            if (capabilities != null) {
                Capability.Builder capability = Capability.newBuilder();
                if (capabilities.getAdd() != null) {
                    capability.addAllAddCapabilities(capabilities.getAdd().stream().map(ContainerConfigs::capability).toList());
                }
                if (capabilities.getDrop() != null) {
                    capability.addAllDropCapabilities(capabilities.getDrop().stream().map(ContainerConfigs::capability).toList());
                }
                security.setCapabilities(capability);
            }
        }
        return security.build();
    }

    /** Capabilities as runtimes expect them: {@code CAP_} prefixed, except {@code ALL}. */
    private static String capability(String name) {
        String upper = name.toUpperCase(java.util.Locale.ROOT);
        return upper.equals("ALL") || upper.startsWith("CAP_") ? upper : "CAP_" + upper;
    }

    /** Expands {@code $(VAR)} references in a command or argument; {@code $$} escapes, as upstream. */
    static String expand(String input, Map<String, String> variables) {
        StringBuilder output = new StringBuilder();
        int index = 0;
        while (index < input.length()) {
            char current = input.charAt(index);
            if (current == '$' && index + 1 < input.length()) {
                char next = input.charAt(index + 1);
                if (next == '$') {
                    output.append('$');
                    index += 2;
                    continue;
                }
                if (next == '(') {
                    int close = input.indexOf(')', index + 2);
                    if (close > 0) {
                        String name = input.substring(index + 2, close);
                        if (variables.containsKey(name)) {
                            output.append(variables.get(name));
                        }
                        else {
                            output.append(input, index, close + 1);
                        }
                        index = close + 1;
                        continue;
                    }
                }
            }
            output.append(current);
            index++;
        }
        return output.toString();
    }

    static long milli(Quantity quantity) {
        return quantity == null ? 0 : io.k4j.api.quantity.Quantity.parse(quantity.toString()).milliValue();
    }

    static long bytes(Quantity quantity) {
        return quantity == null ? 0 : io.k4j.api.quantity.Quantity.parse(quantity.toString()).value();
    }
}
