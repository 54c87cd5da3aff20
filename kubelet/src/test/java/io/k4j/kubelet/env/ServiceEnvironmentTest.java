package io.k4j.kubelet.env;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServiceEnvironmentTest {
    static Service service(String namespace, String name, String clusterIp, int... ports) {
        ServiceBuilder builder = new ServiceBuilder().withNewMetadata().withNamespace(namespace).withName(name).endMetadata()
                .withNewSpec().withClusterIP(clusterIp).endSpec();
        for (int index = 0; index < ports.length; index++) {
            builder.editSpec().addNewPort().withName(index == 0 ? null : "port" + index).withPort(ports[index]).withProtocol("TCP").endPort()
                    .endSpec();
        }
        return builder.build();
    }

    @Test
    void writesHostPortAndDockerLinkVariables() {
        Service service = service("ns", "my-svc", "10.43.0.10", 80, 443);
        service.getSpec().getPorts().get(1).setProtocol("UDP");

        Map<String, String> variables = ServiceEnvironment.forService(service);

        assertThat(variables).containsExactly(
                Map.entry("MY_SVC_SERVICE_HOST", "10.43.0.10"),
                Map.entry("MY_SVC_SERVICE_PORT", "80"),
                Map.entry("MY_SVC_SERVICE_PORT_PORT1", "443"),
                Map.entry("MY_SVC_PORT", "tcp://10.43.0.10:80"),
                Map.entry("MY_SVC_PORT_80_TCP", "tcp://10.43.0.10:80"),
                Map.entry("MY_SVC_PORT_80_TCP_PROTO", "tcp"),
                Map.entry("MY_SVC_PORT_80_TCP_PORT", "80"),
                Map.entry("MY_SVC_PORT_80_TCP_ADDR", "10.43.0.10"),
                Map.entry("MY_SVC_PORT_443_UDP", "udp://10.43.0.10:443"),
                Map.entry("MY_SVC_PORT_443_UDP_PROTO", "udp"),
                Map.entry("MY_SVC_PORT_443_UDP_PORT", "443"),
                Map.entry("MY_SVC_PORT_443_UDP_ADDR", "10.43.0.10"));
    }

    @Test
    void bracketsIpv6Addresses() {
        assertThat(ServiceEnvironment.forService(service("ns", "v6", "fd00::10", 53)))
                .containsEntry("V6_PORT", "tcp://[fd00::10]:53");
    }

    @Test
    void takesTheNamespacesServicesAndTheKubernetesServiceSkippingHeadlessOnes() {
        List<Service> services = List.of(
                service("default", "kubernetes", "10.43.0.1", 443),
                service("default", "other", "10.43.0.2", 80),
                service("ns", "web", "10.43.0.3", 80),
                service("ns", "headless", "None", 80),
                service("elsewhere", "far", "10.43.0.4", 80));

        Map<String, String> linked = ServiceEnvironment.forPod("ns", true, services);
        Map<String, String> unlinked = ServiceEnvironment.forPod("ns", false, services);

        assertThat(linked).containsEntry("KUBERNETES_SERVICE_HOST", "10.43.0.1").containsEntry("KUBERNETES_SERVICE_PORT", "443")
                .containsEntry("WEB_SERVICE_HOST", "10.43.0.3")
                .doesNotContainKeys("OTHER_SERVICE_HOST", "HEADLESS_SERVICE_HOST", "FAR_SERVICE_HOST");
        assertThat(unlinked).containsEntry("KUBERNETES_SERVICE_HOST", "10.43.0.1").doesNotContainKey("WEB_SERVICE_HOST");
    }
}
