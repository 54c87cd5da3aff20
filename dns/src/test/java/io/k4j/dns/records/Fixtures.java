package io.k4j.dns.records;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Services and EndpointSlices as the apiserver and the slice controller write them. */
public final class Fixtures {
    private Fixtures() {}

    /** A port: {@code name:protocol:port}, name may be empty. */
    public record Port(String name, String protocol, int port) {}

    /** An endpoint of a slice. */
    public record Address(String ip, String hostname, Boolean ready) {
        public static Address ready(String ip) {
            return new Address(ip, null, true);
        }
    }

    public static Service clusterIpService(String namespace, String name, String clusterIp, Port... ports) {
        return service(namespace, name, "ClusterIP", clusterIp, null, ports);
    }

    public static Service headlessService(String namespace, String name, Port... ports) {
        return service(namespace, name, "ClusterIP", "None", null, ports);
    }

    public static Service externalNameService(String namespace, String name, String externalName) {
        return service(namespace, name, "ExternalName", null, externalName);
    }

    public static Service service(String namespace, String name, String type, String clusterIp, String externalName, Port... ports) {
        List<io.fabric8.kubernetes.api.model.ServicePort> servicePorts = new ArrayList<>();
        for (Port port : ports) {
            servicePorts.add(new ServicePortBuilder().withName(port.name().isEmpty() ? null : port.name()).withProtocol(port.protocol())
                    .withPort(port.port()).build());
        }
        return new ServiceBuilder().withNewMetadata().withNamespace(namespace).withName(name).endMetadata()
                .withNewSpec().withType(type).withClusterIP(clusterIp)
                .withClusterIPs(clusterIp == null || clusterIp.equals("None") ? List.of() : List.of(clusterIp))
                .withExternalName(externalName).withPorts(servicePorts).endSpec().build();
    }

    public static EndpointSlice slice(String namespace, String name, String service, String addressType, List<Port> ports, Address... addresses) {
        List<io.fabric8.kubernetes.api.model.discovery.v1.Endpoint> endpoints = new ArrayList<>();
        for (Address address : addresses) {
            endpoints.add(new EndpointBuilder().withAddresses(address.ip()).withHostname(address.hostname())
                    .withNewConditions().withReady(address.ready()).endConditions().build());
        }
        List<io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort> slicePorts = new ArrayList<>();
        for (Port port : ports) {
            slicePorts.add(new EndpointPortBuilder().withName(port.name().isEmpty() ? null : port.name()).withProtocol(port.protocol())
                    .withPort(port.port()).build());
        }
        return new EndpointSliceBuilder().withNewMetadata().withNamespace(namespace).withName(name)
                .withLabels(service == null ? Map.of() : Map.of(RecordIndex.SERVICE_NAME_LABEL, service)).endMetadata()
                .withAddressType(addressType).withEndpoints(endpoints).withPorts(slicePorts).build();
    }
}
