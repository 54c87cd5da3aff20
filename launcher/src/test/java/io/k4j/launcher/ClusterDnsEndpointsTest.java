package io.k4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class ClusterDnsEndpointsTest {
    private static final InetSocketAddress NODE = new InetSocketAddress(InetAddress.getLoopbackAddress(), 1053);

    @Test
    void theSliceBelongsToKubeDnsAndNamesBothPortsOfTheService() {
        EndpointSlice slice = ClusterDnsEndpoints.slice(NODE);

        assertThat(slice.getMetadata().getNamespace()).isEqualTo("kube-system");
        // kube-proxy and the DNS find a slice's service by this label; the manager label keeps the EndpointSlice
        // controller's hands off it.
        assertThat(slice.getMetadata().getLabels())
                .containsEntry("kubernetes.io/service-name", "kube-dns")
                .containsEntry("endpointslice.kubernetes.io/managed-by", "cluster-dns.k4j.io");
        assertThat(slice.getAddressType()).isEqualTo("IPv4");
        assertThat(slice.getEndpoints()).singleElement().satisfies(endpoint -> {
            assertThat(endpoint.getAddresses()).containsExactly("127.0.0.1");
            assertThat(endpoint.getConditions().getReady()).isTrue();
        });
        // Matched to the service's ports by name: 53/UDP "dns" and 53/TCP "dns-tcp" go to the server's one port.
        assertThat(slice.getPorts()).extracting(port -> port.getName() + "/" + port.getProtocol() + ":" + port.getPort())
                .containsExactly("dns/UDP:1053", "dns-tcp/TCP:1053");
    }

    @Test
    void theEndpointsAreNotMirroredAgain() {
        Endpoints endpoints = ClusterDnsEndpoints.endpoints(NODE);

        assertThat(endpoints.getMetadata().getName()).isEqualTo("kube-dns");
        assertThat(endpoints.getMetadata().getLabels()).containsEntry("endpointslice.kubernetes.io/skip-mirror", "true");
        assertThat(endpoints.getSubsets()).singleElement().satisfies(subset -> {
            assertThat(subset.getAddresses()).singleElement().satisfies(address -> assertThat(address.getIp()).isEqualTo("127.0.0.1"));
            assertThat(subset.getPorts()).extracting(port -> port.getName() + "/" + port.getProtocol() + ":" + port.getPort())
                    .containsExactly("dns/UDP:1053", "dns-tcp/TCP:1053");
        });
    }
}
