package io.k4j.kubelet.kuberuntime;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.Sysctl;
import io.k4j.kubelet.KubeletConfig;
import io.k4j.kubelet.cri.v1.DNSConfig;
import io.k4j.kubelet.cri.v1.Int64Value;
import io.k4j.kubelet.cri.v1.LinuxPodSandboxConfig;
import io.k4j.kubelet.cri.v1.LinuxSandboxSecurityContext;
import io.k4j.kubelet.cri.v1.NamespaceMode;
import io.k4j.kubelet.cri.v1.NamespaceOption;
import io.k4j.kubelet.cri.v1.PodSandboxConfig;
import io.k4j.kubelet.cri.v1.PodSandboxMetadata;
import io.k4j.kubelet.cri.v1.PortMapping;
import io.k4j.kubelet.cri.v1.Protocol;
import io.k4j.kubelet.dns.HostResolvConf;
import io.k4j.kubelet.dns.PodDns;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pod's {@code PodSandboxConfig} as upstream's {@code generatePodSandboxConfig}: metadata with the attempt,
 * hostname, log directory, DNS by {@code dnsPolicy}, host port mappings, labels and annotations, Linux namespaces and
 * security context. Stateless apart from the config it was made with; thread-safe.
 */
public final class SandboxConfigs {
    private static final Logger LOG = LoggerFactory.getLogger(SandboxConfigs.class);

    private final KubeletConfig config;

    public SandboxConfigs(KubeletConfig config) {
        this.config = config;
    }

    public PodSandboxConfig build(Pod pod, int attempt) {
        String uid = pod.getMetadata().getUid();
        String name = pod.getMetadata().getName();
        String namespace = pod.getMetadata().getNamespace();
        PodSandboxConfig.Builder sandbox = PodSandboxConfig.newBuilder()
                .setMetadata(PodSandboxMetadata.newBuilder()
                        .setName(name)
                        .setNamespace(namespace)
                        .setUid(uid)
                        .setAttempt(attempt))
                .setLogDirectory(config.podLogDirectory(namespace, name, uid).toString())
                .setDnsConfig(dnsConfig(pod));
        if (!hostNetwork(pod)) {
            sandbox.setHostname(hostname(pod));
        }
        sandbox.addAllPortMappings(portMappings(pod));
        if (pod.getMetadata().getLabels() != null) {
            sandbox.putAllLabels(pod.getMetadata().getLabels());
        }
        sandbox.putLabels(KubeletLabels.POD_NAME, name);
        sandbox.putLabels(KubeletLabels.POD_NAMESPACE, namespace);
        sandbox.putLabels(KubeletLabels.POD_UID, uid);
        if (pod.getMetadata().getAnnotations() != null) {
            sandbox.putAllAnnotations(pod.getMetadata().getAnnotations());
        }
        sandbox.putAnnotations(KubeletLabels.CONFIG_SOURCE, "api");
        sandbox.setLinux(linux(pod));
        return sandbox.build();
    }

    /** The pod's hostname: {@code spec.hostname}, else the pod's name cut to 63 characters, as upstream. */
    public static String hostname(Pod pod) {
        String hostname = pod.getSpec().getHostname();
        if (hostname == null || hostname.isEmpty()) {
            hostname = pod.getMetadata().getName();
        }
        if (hostname.length() > 63) {
            hostname = hostname.substring(0, 63);
            while (hostname.endsWith("-") || hostname.endsWith(".")) {
                hostname = hostname.substring(0, hostname.length() - 1);
            }
        }
        return hostname;
    }

    public static boolean hostNetwork(Pod pod) {
        return Boolean.TRUE.equals(pod.getSpec().getHostNetwork());
    }

    DNSConfig dnsConfig(Pod pod) {
        PodDns.Result result = PodDns.configure(pod, new PodDns.ClusterDnsSettings(config.clusterDns(), config.clusterDomain()), hostResolvConf());
        for (PodDns.Warning warning : result.warnings()) {
            LOG.debug("kubelet: {}: {}", warning.reason(), warning.message());
        }
        return result.config().toCri();
    }

    /** The node's resolv.conf without loopback name servers, which a pod's own network namespace cannot reach. */
    private Optional<HostResolvConf> hostResolvConf() {
        String content;
        try {
            if (!Files.exists(config.resolvConf())) {
                return Optional.empty();
            }
            content = Files.readString(config.resolvConf());
        } catch (IOException e) {
            LOG.warn("kubelet: cannot read {}: {}", config.resolvConf(), e.toString());
            return Optional.empty();
        }
        HostResolvConf host = HostResolvConf.parse(content);
        List<String> reachable = host.nameservers().stream().filter(server -> !server.startsWith("127.") && !server.equals("::1")).toList();
        return Optional.of(new HostResolvConf(reachable, host.searches(), host.options()));
    }

    private static List<PortMapping> portMappings(Pod pod) {
        List<PortMapping> mappings = new ArrayList<>();
        for (Container container : pod.getSpec().getContainers()) {
            if (container.getPorts() == null) {
                continue;
            }
            for (ContainerPort port : container.getPorts()) {
                if (port.getHostPort() == null || port.getHostPort() <= 0) {
                    continue;
                }
                mappings.add(PortMapping.newBuilder()
                        .setProtocol(protocol(port.getProtocol()))
                        .setContainerPort(port.getContainerPort())
                        .setHostPort(port.getHostPort())
                        .setHostIp(port.getHostIP() == null ? "" : port.getHostIP())
                        .build());
            }
        }
        return mappings;
    }

    static Protocol protocol(String protocol) {
        if ("UDP".equals(protocol)) {
            return Protocol.UDP;
        }
        if ("SCTP".equals(protocol)) {
            return Protocol.SCTP;
        }
        return Protocol.TCP;
    }

    private static LinuxPodSandboxConfig linux(Pod pod) {
        LinuxSandboxSecurityContext.Builder security = LinuxSandboxSecurityContext.newBuilder()
                .setNamespaceOptions(namespaceOptions(pod));
        PodSecurityContext podSecurity = pod.getSpec().getSecurityContext();
        LinuxPodSandboxConfig.Builder linux = LinuxPodSandboxConfig.newBuilder();
        if (podSecurity != null) {
            if (podSecurity.getRunAsUser() != null) {
                security.setRunAsUser(Int64Value.newBuilder().setValue(podSecurity.getRunAsUser()));
            }
            if (podSecurity.getRunAsGroup() != null) {
                security.setRunAsGroup(Int64Value.newBuilder().setValue(podSecurity.getRunAsGroup()));
            }
            if (podSecurity.getSupplementalGroups() != null) {
                security.addAllSupplementalGroups(podSecurity.getSupplementalGroups());
            }
            if (podSecurity.getFsGroup() != null) {
                security.addSupplementalGroups(podSecurity.getFsGroup());
            }
            if (podSecurity.getSysctls() != null) {
                for (Sysctl sysctl : podSecurity.getSysctls()) {
                    linux.putSysctls(sysctl.getName(), sysctl.getValue());
                }
            }
        }
        boolean privileged = allContainers(pod).stream()
                .anyMatch(container -> container.getSecurityContext() != null
                        && Boolean.TRUE.equals(container.getSecurityContext().getPrivileged()));
        security.setPrivileged(privileged);
        return linux.setSecurityContext(security).build();
    }

    /** The pod's Linux namespaces, as upstream: the host's with hostNetwork/hostPID/hostIPC, per container PID. */
    public static NamespaceOption namespaceOptions(Pod pod) {
        NamespaceMode pid = NamespaceMode.CONTAINER;
        if (Boolean.TRUE.equals(pod.getSpec().getHostPID())) {
            pid = NamespaceMode.NODE;
        }
        else if (Boolean.TRUE.equals(pod.getSpec().getShareProcessNamespace())) {
            pid = NamespaceMode.POD;
        }
        return NamespaceOption.newBuilder()
                .setNetwork(hostNetwork(pod) ? NamespaceMode.NODE : NamespaceMode.POD)
                .setPid(pid)
                .setIpc(Boolean.TRUE.equals(pod.getSpec().getHostIPC()) ? NamespaceMode.NODE : NamespaceMode.POD)
                .build();
    }

    static List<Container> allContainers(Pod pod) {
        List<Container> containers = new ArrayList<>();
        if (pod.getSpec().getInitContainers() != null) {
            containers.addAll(pod.getSpec().getInitContainers());
        }
        containers.addAll(pod.getSpec().getContainers());
        return containers;
    }

    static Map<String, String> podLabels(Pod pod) {
        return Map.of(KubeletLabels.POD_NAME, pod.getMetadata().getName(),
                KubeletLabels.POD_NAMESPACE, pod.getMetadata().getNamespace(),
                KubeletLabels.POD_UID, pod.getMetadata().getUid());
    }
}
