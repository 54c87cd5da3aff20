package io.k4j.kubelet.kuberuntime;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodDNSConfig;
import io.fabric8.kubernetes.api.model.PodDNSConfigOption;
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

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A pod's {@code PodSandboxConfig} as upstream's {@code generatePodSandboxConfig}: metadata with the attempt,
 * hostname, log directory, DNS by {@code dnsPolicy}, host port mappings, labels and annotations, Linux namespaces and
 * security context. Stateless apart from the config it was made with; thread-safe.
 */
public final class SandboxConfigs {
    private static final int MAX_DNS_SEARCHES = 32;

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
        String policy = pod.getSpec().getDnsPolicy() == null ? "ClusterFirst" : pod.getSpec().getDnsPolicy();
        if (policy.equals("ClusterFirst") && hostNetwork(pod)) {
            policy = "Default";
        }
        if (policy.equals("ClusterFirstWithHostNet")) {
            policy = "ClusterFirst";
        }
        if (policy.equals("ClusterFirst") && config.clusterDns().isEmpty()) {
            // Upstream falls back to the host's resolv.conf when the kubelet has no cluster DNS.
            policy = "Default";
        }
        DNSConfig.Builder dns = DNSConfig.newBuilder();
        Set<String> searches = new LinkedHashSet<>();
        List<String> options = new ArrayList<>();
        switch (policy) {
            case "ClusterFirst" -> {
                dns.addAllServers(config.clusterDns());
                String namespace = pod.getMetadata().getNamespace();
                searches.add(namespace + ".svc." + config.clusterDomain());
                searches.add("svc." + config.clusterDomain());
                searches.add(config.clusterDomain());
                searches.addAll(hostResolvConf("search"));
                options.add("ndots:5");
            }
            case "Default" -> {
                dns.addAllServers(hostResolvConf("nameserver"));
                searches.addAll(hostResolvConf("search"));
                options.addAll(hostResolvConf("options"));
            }
            default -> {
                // "None": only spec.dnsConfig below.
            }
        }
        PodDNSConfig podDns = pod.getSpec().getDnsConfig();
        if (podDns != null) {
            if (podDns.getNameservers() != null) {
                for (String server : podDns.getNameservers()) {
                    if (!dns.getServersList().contains(server)) {
                        dns.addServers(server);
                    }
                }
            }
            if (podDns.getSearches() != null) {
                searches.addAll(podDns.getSearches());
            }
            if (podDns.getOptions() != null) {
                for (PodDNSConfigOption option : podDns.getOptions()) {
                    options.removeIf(existing -> existing.split(":")[0].equals(option.getName()));
                    options.add(option.getValue() == null ? option.getName() : option.getName() + ":" + option.getValue());
                }
            }
        }
        dns.addAllSearches(searches.stream().limit(MAX_DNS_SEARCHES).toList());
        dns.addAllOptions(options);
        return dns.build();
    }

    private List<String> hostResolvConf(String keyword) {
        List<String> values = new ArrayList<>();
        try {
            if (!Files.exists(config.resolvConf())) {
                return values;
            }
            for (String line : Files.readAllLines(config.resolvConf())) {
                String[] fields = line.trim().split("\\s+");
                if (fields.length > 1 && fields[0].equals(keyword)) {
                    for (int index = 1; index < fields.length; index++) {
                        values.add(fields[index]);
                    }
                }
            }
        }
        catch (IOException e) {
            return values;
        }
        if (keyword.equals("nameserver")) {
            // A loopback resolver of the host is unreachable from a pod's network namespace.
            values.removeIf(server -> server.startsWith("127.") || server.equals("::1"));
        }
        return values;
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
