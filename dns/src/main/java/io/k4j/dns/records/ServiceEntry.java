package io.k4j.dns.records;

import static java.util.Objects.requireNonNull;

import java.net.InetAddress;
import java.util.List;
import java.util.Optional;

/**
 * What DNS knows about one service: its kind, its ports and its ready endpoints (merged from all its EndpointSlices).
 * Immutable.
 */
public record ServiceEntry(String namespace, String name, Kind kind, List<ServicePort> ports, List<Endpoint> endpoints) {
    public ServiceEntry {
        requireNonNull(namespace, "namespace is null");
        requireNonNull(name, "name is null");
        requireNonNull(kind, "kind is null");
        ports = List.copyOf(requireNonNull(ports, "ports is null"));
        endpoints = List.copyOf(requireNonNull(endpoints, "endpoints is null"));
    }

    /** How the service's own name resolves. */
    public sealed interface Kind permits ClusterIp, Headless, ExternalName {}

    /** A virtual IP per family: the name resolves to the cluster IPs. */
    public record ClusterIp(List<InetAddress> addresses) implements Kind {
        public ClusterIp {
            addresses = List.copyOf(requireNonNull(addresses, "addresses is null"));
        }
    }

    /** {@code clusterIP: None}: the name resolves to every ready endpoint. */
    public record Headless() implements Kind {}

    /** {@code type: ExternalName}: the name is an alias (CNAME) of another name. */
    public record ExternalName(String target) implements Kind {
        public ExternalName {
            requireNonNull(target, "target is null");
        }
    }

    /**
     * A ready endpoint address.
     *
     * @param label the first label of its own name: the endpoint's hostname, or its address with dashes
     * @param ports the ports of the slice it came from
     */
    public record Endpoint(InetAddress address, String label, List<ServicePort> ports) {
        public Endpoint {
            requireNonNull(address, "address is null");
            requireNonNull(label, "label is null");
            ports = List.copyOf(requireNonNull(ports, "ports is null"));
        }
    }

    /** The ready endpoint named {@code label} (first match, as several slices may repeat an address). */
    public Optional<Endpoint> endpoint(String label) {
        return endpoints.stream().filter(endpoint -> endpoint.label().equalsIgnoreCase(label)).findFirst();
    }
}
