package io.k4j.proxy;

import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointConditions;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Merges the EndpointSlices of each service into the endpoints of each of its ports, as upstream's
 * EndpointsChangeTracker does: a slice belongs to the service its {@code kubernetes.io/service-name} label names, and
 * a missing condition means ready / serving = ready / not terminating. IPv4 slices only. Stateless and thread-safe.
 */
public final class EndpointsTracker {
    public static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";

    private EndpointsTracker() {}

    /** The endpoints of each service port, none of them local. */
    public static Map<ServicePortName, List<EndpointInfo>> endpoints(List<EndpointSlice> slices) {
        return endpoints(slices, Optional.empty());
    }

    /** The endpoints of each service port; those whose {@code nodeName} is {@code nodeName} are local. */
    public static Map<ServicePortName, List<EndpointInfo>> endpoints(List<EndpointSlice> slices, Optional<String> nodeName) {
        Map<ServicePortName, List<EndpointInfo>> byPort = new HashMap<>();
        for (EndpointSlice slice : slices) {
            Map<String, String> labels = slice.getMetadata().getLabels();
            String serviceName = labels == null ? null : labels.get(SERVICE_NAME_LABEL);
            if (serviceName == null || !"IPv4".equals(slice.getAddressType()) || slice.getPorts() == null) {
                continue;
            }
            for (EndpointPort port : slice.getPorts()) {
                if (port.getPort() == null) {
                    continue;
                }
                ServicePortName name = new ServicePortName(slice.getMetadata().getNamespace(), serviceName,
                        Objects.requireNonNullElse(port.getName(), ""));
                List<EndpointInfo> endpoints = byPort.computeIfAbsent(name, key -> new ArrayList<>());
                for (Endpoint endpoint : slice.getEndpoints() == null ? List.<Endpoint>of() : slice.getEndpoints()) {
                    if (endpoint.getAddresses() == null || endpoint.getAddresses().isEmpty()) {
                        continue;
                    }
                    EndpointConditions conditions = endpoint.getConditions();
                    boolean ready = conditions == null || conditions.getReady() == null || conditions.getReady();
                    boolean serving = conditions == null || conditions.getServing() == null ? ready : conditions.getServing();
                    boolean terminating = conditions != null && Boolean.TRUE.equals(conditions.getTerminating());
                    // Upstream uses the first address only: the others are reserved for future use.
                    boolean local = nodeName.isPresent() && nodeName.get().equals(endpoint.getNodeName());
                    endpoints.add(new EndpointInfo(endpoint.getAddresses().get(0), port.getPort(), ready, serving, terminating, local));
                }
            }
        }
        return byPort;
    }
}
