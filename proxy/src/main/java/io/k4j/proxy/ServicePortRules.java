package io.k4j.proxy;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The rules one service port contributes, generated from its {@link ServicePortInfo} and endpoints alone: its own
 * chains (KUBE-SVC, KUBE-SVL, KUBE-EXT, KUBE-SEP) and its lines in the chains all service ports share. A sync that
 * finds a service port and its endpoints unchanged reuses them as they are. Immutable.
 *
 * @param service the service port the rules are for
 * @param endpoints all its endpoints, as the rules were generated from them
 * @param usableEndpoints the endpoints traffic goes to (ready ones, or the serving terminating ones when none is ready)
 * @param natServices its lines in the nat table's KUBE-SERVICES
 * @param natNodePorts its lines in KUBE-NODEPORTS
 * @param filterServices its lines in the filter table's KUBE-SERVICES
 * @param filterExternalServices its lines in KUBE-EXTERNAL-SERVICES
 * @param chains its own nat chains by name, in name order
 */
public record ServicePortRules(ServicePortInfo service, List<EndpointInfo> endpoints, List<EndpointInfo> usableEndpoints,
        List<String> natServices, List<String> natNodePorts, List<String> filterServices, List<String> filterExternalServices,
        SortedMap<String, List<String>> chains) {
    public ServicePortRules {
        requireNonNull(service, "service is null");
        endpoints = List.copyOf(endpoints);
        usableEndpoints = List.copyOf(usableEndpoints);
        natServices = List.copyOf(natServices);
        natNodePorts = List.copyOf(natNodePorts);
        filterServices = List.copyOf(filterServices);
        filterExternalServices = List.copyOf(filterExternalServices);
        SortedMap<String, List<String>> copy = new TreeMap<>();
        chains.forEach((chain, rules) -> copy.put(chain, List.copyOf(rules)));
        chains = Collections.unmodifiableSortedMap(copy);
    }

    /** Whether these rules were generated from exactly this service port and these endpoints. */
    public boolean generatedFrom(ServicePortInfo otherService, List<EndpointInfo> otherEndpoints) {
        return service.equals(otherService) && endpoints.equals(otherEndpoints);
    }
}
