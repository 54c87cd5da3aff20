package io.k4j.proxy;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Turns Services into the service ports the proxy programs, as upstream's ServiceChangeTracker does: headless and
 * ExternalName services have no virtual IP and are skipped, as are IPv6 ClusterIPs (this proxy writes the IPv4
 * tables only). Stateless and thread-safe.
 */
public final class ServiceTracker {
    /** Upstream's default ClientIP affinity timeout: three hours. */
    public static final int DEFAULT_AFFINITY_TIMEOUT_SECONDS = 10800;

    private ServiceTracker() {}

    public static Map<ServicePortName, ServicePortInfo> servicePorts(List<Service> services) {
        Map<ServicePortName, ServicePortInfo> ports = new HashMap<>();
        for (Service service : services) {
            ServiceSpec spec = service.getSpec();
            if (spec == null || !isProxied(spec)) {
                continue;
            }
            boolean hasNodePorts = "NodePort".equals(spec.getType()) || "LoadBalancer".equals(spec.getType());
            int affinityTimeout = affinityTimeoutSeconds(spec);
            List<String> externalIps = spec.getExternalIPs() == null ? List.of()
                    : spec.getExternalIPs().stream().filter(ip -> !ip.contains(":")).toList();
            for (ServicePort port : spec.getPorts() == null ? List.<ServicePort>of() : spec.getPorts()) {
                if (port.getPort() == null) {
                    continue;
                }
                ServicePortName name = new ServicePortName(service.getMetadata().getNamespace(),
                        service.getMetadata().getName(), Objects.requireNonNullElse(port.getName(), ""));
                int nodePort = hasNodePorts && port.getNodePort() != null ? port.getNodePort() : 0;
                boolean externallyAccessible = nodePort > 0 || !externalIps.isEmpty();
                ports.put(name, new ServicePortInfo(name, Objects.requireNonNullElse(port.getProtocol(), "TCP"),
                        spec.getClusterIP(), port.getPort(), nodePort, externalIps, affinityTimeout,
                        externallyAccessible && "Local".equals(spec.getExternalTrafficPolicy())));
            }
        }
        return ports;
    }

    private static boolean isProxied(ServiceSpec spec) {
        String clusterIp = spec.getClusterIP();
        return !"ExternalName".equals(spec.getType()) && clusterIp != null && !clusterIp.isEmpty()
                && !"None".equals(clusterIp) && !clusterIp.contains(":");
    }

    private static int affinityTimeoutSeconds(ServiceSpec spec) {
        if (!"ClientIP".equals(spec.getSessionAffinity())) {
            return 0;
        }
        if (spec.getSessionAffinityConfig() != null && spec.getSessionAffinityConfig().getClientIP() != null
                && spec.getSessionAffinityConfig().getClientIP().getTimeoutSeconds() != null) {
            return spec.getSessionAffinityConfig().getClientIP().getTimeoutSeconds();
        }
        return DEFAULT_AFFINITY_TIMEOUT_SECONDS;
    }
}
