package io.k4j.kubelet.env;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The service environment variables upstream's kubelet gives every container: {@code <NAME>_SERVICE_HOST},
 * {@code <NAME>_SERVICE_PORT} (and one per named port) and the Docker-link style {@code <NAME>_PORT},
 * {@code <NAME>_PORT_<port>_<PROTO>[_PROTO|_PORT|_ADDR]}. Stateless and thread-safe.
 */
public final class ServiceEnvironment {
    private static final String MASTER_SERVICE = "kubernetes";
    private static final String DEFAULT_NAMESPACE = "default";

    private ServiceEnvironment() {}

    /**
     * The variables for a pod in {@code namespace}: the {@code kubernetes} service of {@code default} always, the
     * other services of the pod's namespace only when {@code enableServiceLinks}; services without a cluster IP
     * (headless) are left out.
     *
     * @param services services of the pod's namespace and of {@code default}, in any order
     */
    public static Map<String, String> forPod(String namespace, boolean enableServiceLinks, List<Service> services) {
        Map<String, Service> byName = new LinkedHashMap<>();
        for (Service service : services) {
            if (!hasClusterIp(service)) {
                continue;
            }
            String name = service.getMetadata().getName();
            String serviceNamespace = service.getMetadata().getNamespace();
            if (DEFAULT_NAMESPACE.equals(serviceNamespace) && MASTER_SERVICE.equals(name)) {
                byName.putIfAbsent(name, service);
            } else if (namespace.equals(serviceNamespace) && enableServiceLinks) {
                byName.put(name, service);
            }
        }
        Map<String, String> variables = new LinkedHashMap<>();
        for (Service service : byName.values()) {
            variables.putAll(forService(service));
        }
        return variables;
    }

    /** The variables of one service with a cluster IP, in upstream's order. */
    public static Map<String, String> forService(Service service) {
        Map<String, String> variables = new LinkedHashMap<>();
        List<ServicePort> ports = service.getSpec().getPorts() == null ? List.of() : service.getSpec().getPorts();
        if (!hasClusterIp(service) || ports.isEmpty()) {
            return variables;
        }
        String clusterIp = service.getSpec().getClusterIP();
        String prefix = variableName(service.getMetadata().getName());
        variables.put(prefix + "_SERVICE_HOST", clusterIp);
        String portName = prefix + "_SERVICE_PORT";
        variables.put(portName, String.valueOf(ports.get(0).getPort()));
        for (ServicePort port : ports) {
            if (port.getName() != null && !port.getName().isEmpty()) {
                variables.put(portName + "_" + variableName(port.getName()), String.valueOf(port.getPort()));
            }
        }
        List<Map.Entry<String, String>> links = new ArrayList<>();
        for (int index = 0; index < ports.size(); index++) {
            ServicePort port = ports.get(index);
            String protocol = port.getProtocol() == null || port.getProtocol().isEmpty() ? "TCP" : port.getProtocol();
            String lowerProtocol = protocol.toLowerCase(Locale.ROOT);
            String address = lowerProtocol + "://" + joinHostPort(clusterIp, port.getPort());
            if (index == 0) {
                links.add(Map.entry(prefix + "_PORT", address));
            }
            String portPrefix = prefix + "_PORT_" + port.getPort() + "_" + protocol.toUpperCase(Locale.ROOT);
            links.add(Map.entry(portPrefix, address));
            links.add(Map.entry(portPrefix + "_PROTO", lowerProtocol));
            links.add(Map.entry(portPrefix + "_PORT", String.valueOf(port.getPort())));
            links.add(Map.entry(portPrefix + "_ADDR", clusterIp));
        }
        for (Map.Entry<String, String> link : links) {
            variables.put(link.getKey(), link.getValue());
        }
        return variables;
    }

    private static boolean hasClusterIp(Service service) {
        String clusterIp = service.getSpec() == null ? null : service.getSpec().getClusterIP();
        return clusterIp != null && !clusterIp.isEmpty() && !clusterIp.equals("None");
    }

    private static String variableName(String name) {
        return name.replace('-', '_').toUpperCase(Locale.ROOT);
    }

    private static String joinHostPort(String host, Integer port) {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
