package io.k4j.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TrackersTest {
    @Test
    void servicePortsOfClusterIpNodePortAndAffinityServices() {
        Service web = new ServiceBuilder().withNewMetadata().withNamespace("default").withName("web").endMetadata()
                .withNewSpec().withType("NodePort").withClusterIP("10.96.0.20").withSessionAffinity("ClientIP")
                .addNewPort().withName("http").withPort(80).withNodePort(30080).endPort()
                .addNewPort().withName("dns").withProtocol("UDP").withPort(53).withNodePort(30053).endPort()
                .endSpec().build();
        Service single = new ServiceBuilder().withNewMetadata().withNamespace("default").withName("single").endMetadata()
                .withNewSpec().withType("ClusterIP").withClusterIP("10.96.0.21").withExternalIPs("192.168.1.9", "fd00::1")
                .withSessionAffinity("ClientIP").withNewSessionAffinityConfig().withNewClientIP().withTimeoutSeconds(60)
                .endClientIP().endSessionAffinityConfig()
                .addNewPort().withPort(8080).withNodePort(31000).endPort().endSpec().build();

        Map<ServicePortName, ServicePortInfo> ports = ServiceTracker.servicePorts(List.of(web, single));

        assertThat(ports).hasSize(3);
        assertThat(ports.get(new ServicePortName("default", "web", "http")))
                .isEqualTo(new ServicePortInfo(new ServicePortName("default", "web", "http"), "TCP", "10.96.0.20", 80, 30080, List.of(), 10800));
        assertThat(ports.get(new ServicePortName("default", "web", "dns")).protocol()).isEqualTo("UDP");
        ServicePortInfo singlePort = ports.get(new ServicePortName("default", "single", ""));
        assertThat(singlePort.name().toString()).isEqualTo("default/single");
        assertThat(singlePort.nodePort()).as("a ClusterIP service has no node port").isZero();
        assertThat(singlePort.externalIps()).containsExactly("192.168.1.9");
        assertThat(singlePort.affinityTimeoutSeconds()).isEqualTo(60);
    }

    @Test
    void headlessExternalNameAndIpv6ServicesAreNotProxied() {
        Service headless = service("headless", "ClusterIP", "None");
        Service external = new ServiceBuilder(service("external", "ExternalName", null)).editSpec().withExternalName("example.com").endSpec().build();
        Service ipv6 = service("six", "ClusterIP", "fd00::10");
        Service pending = service("pending", "ClusterIP", null);

        assertThat(ServiceTracker.servicePorts(List.of(headless, external, ipv6, pending))).isEmpty();
    }

    @Test
    void endpointSlicesOfAServiceAreMergedPerPortWithUpstreamsConditionDefaults() {
        EndpointSlice first = new EndpointSliceBuilder().withNewMetadata().withNamespace("default").withName("web-1")
                .addToLabels(EndpointsTracker.SERVICE_NAME_LABEL, "web").endMetadata().withAddressType("IPv4")
                .addNewPort().withName("http").withPort(8080).endPort()
                .addNewEndpoint().withAddresses("10.42.0.1").endEndpoint()
                .addNewEndpoint().withAddresses("10.42.0.2").withNewConditions().withReady(false).withServing(true).withTerminating(true)
                .endConditions().endEndpoint()
                .build();
        EndpointSlice second = new EndpointSliceBuilder().withNewMetadata().withNamespace("default").withName("web-2")
                .addToLabels(EndpointsTracker.SERVICE_NAME_LABEL, "web").endMetadata().withAddressType("IPv4")
                .addNewPort().withName("http").withPort(8080).endPort()
                .addNewEndpoint().withAddresses("10.42.0.3").withNewConditions().withReady(false).endConditions().endEndpoint()
                .build();
        EndpointSlice unlabelled = new EndpointSliceBuilder(second).editMetadata().withName("orphan").withLabels(Map.of()).endMetadata().build();
        EndpointSlice ipv6 = new EndpointSliceBuilder(second).editMetadata().withName("web-3").endMetadata().withAddressType("IPv6").build();

        Map<ServicePortName, List<EndpointInfo>> endpoints = EndpointsTracker.endpoints(List.of(first, second, unlabelled, ipv6));

        assertThat(endpoints).containsOnlyKeys(new ServicePortName("default", "web", "http"));
        assertThat(endpoints.get(new ServicePortName("default", "web", "http"))).containsExactly(
                new EndpointInfo("10.42.0.1", 8080, true, true, false),
                new EndpointInfo("10.42.0.2", 8080, false, true, true),
                new EndpointInfo("10.42.0.3", 8080, false, false, false));
    }

    @Test
    void externalTrafficPolicyLocalAppliesOnlyToExternallyAccessibleServices() {
        Service nodePort = new ServiceBuilder(service("np", "NodePort", "10.96.0.30")).editSpec().withExternalTrafficPolicy("Local")
                .editFirstPort().withNodePort(30030).endPort().endSpec().build();
        Service clusterIp = new ServiceBuilder(service("cip", "ClusterIP", "10.96.0.31")).editSpec().withExternalTrafficPolicy("Local").endSpec().build();

        Map<ServicePortName, ServicePortInfo> ports = ServiceTracker.servicePorts(List.of(nodePort, clusterIp));

        assertThat(ports.get(new ServicePortName("default", "np", "")).externalPolicyLocal()).isTrue();
        assertThat(ports.get(new ServicePortName("default", "cip", "")).externalPolicyLocal()).isFalse();
    }

    @Test
    void endpointsOnThisNodeAreLocal() {
        EndpointSlice slice = new EndpointSliceBuilder().withNewMetadata().withNamespace("default").withName("web-1")
                .addToLabels(EndpointsTracker.SERVICE_NAME_LABEL, "web").endMetadata().withAddressType("IPv4")
                .addNewPort().withName("http").withPort(8080).endPort()
                .addNewEndpoint().withAddresses("10.42.0.1").withNodeName("node-a").endEndpoint()
                .addNewEndpoint().withAddresses("10.42.1.1").withNodeName("node-b").endEndpoint()
                .build();

        assertThat(EndpointsTracker.endpoints(List.of(slice), Optional.of("node-a")).get(new ServicePortName("default", "web", "http")))
                .containsExactly(new EndpointInfo("10.42.0.1", 8080, true, true, false, true),
                        new EndpointInfo("10.42.1.1", 8080, true, true, false, false));
        assertThat(EndpointsTracker.endpoints(List.of(slice)).get(new ServicePortName("default", "web", "http")))
                .noneMatch(EndpointInfo::local);
    }

    private static Service service(String name, String type, String clusterIp) {
        return new ServiceBuilder().withNewMetadata().withNamespace("default").withName(name).endMetadata()
                .withNewSpec().withType(type).withClusterIP(clusterIp).addNewPort().withPort(80).endPort().endSpec().build();
    }
}
