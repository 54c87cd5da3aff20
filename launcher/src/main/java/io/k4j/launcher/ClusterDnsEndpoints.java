package io.k4j.launcher;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.EndpointAddressBuilder;
import io.fabric8.kubernetes.api.model.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.EndpointSubsetBuilder;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.EndpointsBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointConditionsBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Objects;

/**
 * Publishes where the built-in cluster DNS listens for pods as the endpoints of the selector-less {@code kube-dns}
 * service: an Endpoints object (as upstream's CoreDNS pods would appear in it) and its EndpointSlice, which is what
 * kube-proxy reads, so that {@code 10.96.0.10:53} is DNATed to the DNS server on the node's address. The slice carries
 * a manager label of its own, so neither the EndpointSlice controller (selector-less service) nor a mirroring
 * controller ({@code skip-mirror} on the Endpoints) ever touches them. Writes only on a difference, so a restart on the
 * same address leaves kube-proxy's rules alone. Stateless; thread-safe.
 */
final class ClusterDnsEndpoints {
    static final String NAMESPACE = "kube-system";
    static final String SERVICE = "kube-dns";
    /** The slice's name: one per cluster, as one server serves the cluster's DNS. */
    static final String SLICE = "kube-dns-k4j";
    static final String MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";
    static final String MANAGED_BY = "cluster-dns.k4j.io";
    static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";
    static final String SKIP_MIRROR_LABEL = "endpointslice.kubernetes.io/skip-mirror";

    private final KubernetesClient endpointsClient;
    private final KubernetesClient sliceClient;

    /**
     * @param endpointsClient writes the Endpoints (the endpoint controller's identity may)
     * @param sliceClient writes the EndpointSlice (the EndpointSlice controller's identity may)
     */
    ClusterDnsEndpoints(KubernetesClient endpointsClient, KubernetesClient sliceClient) {
        this.endpointsClient = requireNonNull(endpointsClient, "endpointsClient is null");
        this.sliceClient = requireNonNull(sliceClient, "sliceClient is null");
    }

    /** Makes the kube-dns service's endpoints name {@code address} (its port for both 53/UDP and 53/TCP). */
    void publish(InetSocketAddress address) {
        Endpoints endpoints = endpoints(address);
        Endpoints existingEndpoints = endpointsClient.endpoints().inNamespace(NAMESPACE).withName(SERVICE).get();
        if (existingEndpoints == null) {
            createIgnoringConflict(() -> endpointsClient.endpoints().inNamespace(NAMESPACE).resource(endpoints).create());
        } else if (!Objects.equals(existingEndpoints.getSubsets(), endpoints.getSubsets())
                || !Objects.equals(existingEndpoints.getMetadata().getLabels(), endpoints.getMetadata().getLabels())) {
            endpoints.getMetadata().setResourceVersion(existingEndpoints.getMetadata().getResourceVersion());
            endpointsClient.endpoints().inNamespace(NAMESPACE).resource(endpoints).update();
        }

        EndpointSlice slice = slice(address);
        EndpointSlice existingSlice = sliceClient.discovery().v1().endpointSlices().inNamespace(NAMESPACE).withName(SLICE).get();
        if (existingSlice == null) {
            createIgnoringConflict(() -> sliceClient.discovery().v1().endpointSlices().inNamespace(NAMESPACE).resource(slice).create());
        } else if (!Objects.equals(existingSlice.getEndpoints(), slice.getEndpoints())
                || !Objects.equals(existingSlice.getPorts(), slice.getPorts())
                || !Objects.equals(existingSlice.getAddressType(), slice.getAddressType())
                || !Objects.equals(existingSlice.getMetadata().getLabels(), slice.getMetadata().getLabels())) {
            slice.getMetadata().setResourceVersion(existingSlice.getMetadata().getResourceVersion());
            sliceClient.discovery().v1().endpointSlices().inNamespace(NAMESPACE).resource(slice).update();
        }
    }

    static Endpoints endpoints(InetSocketAddress address) {
        return new EndpointsBuilder()
                .withNewMetadata().withName(SERVICE).withNamespace(NAMESPACE)
                .withLabels(Map.of("k8s-app", SERVICE, SKIP_MIRROR_LABEL, "true")).endMetadata()
                .withSubsets(new EndpointSubsetBuilder()
                        .withAddresses(new EndpointAddressBuilder().withIp(address.getAddress().getHostAddress()).build())
                        .withPorts(
                                new EndpointPortBuilder().withName("dns").withPort(address.getPort()).withProtocol("UDP").build(),
                                new EndpointPortBuilder().withName("dns-tcp").withPort(address.getPort()).withProtocol("TCP").build())
                        .build())
                .build();
    }

    static EndpointSlice slice(InetSocketAddress address) {
        return new EndpointSliceBuilder()
                .withNewMetadata().withName(SLICE).withNamespace(NAMESPACE)
                .withLabels(Map.of("k8s-app", SERVICE, SERVICE_NAME_LABEL, SERVICE, MANAGED_BY_LABEL, MANAGED_BY)).endMetadata()
                .withAddressType(address.getAddress() instanceof Inet6Address ? "IPv6" : "IPv4")
                .withEndpoints(new EndpointBuilder()
                        .withAddresses(address.getAddress().getHostAddress())
                        .withConditions(new EndpointConditionsBuilder().withReady(true).withServing(true).withTerminating(false).build())
                        .build())
                .withPorts(
                        new io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder()
                                .withName("dns").withPort(address.getPort()).withProtocol("UDP").build(),
                        new io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder()
                                .withName("dns-tcp").withPort(address.getPort()).withProtocol("TCP").build())
                .build();
    }

    /** A create that lost a race with another writer of the same object: that writer published the same address. */
    private static void createIgnoringConflict(Runnable create) {
        try {
            create.run();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
        }
    }
}
