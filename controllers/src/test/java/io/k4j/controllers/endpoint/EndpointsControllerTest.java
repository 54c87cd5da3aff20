package io.k4j.controllers.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EndpointAddress;
import io.fabric8.kubernetes.api.model.EndpointSubset;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.EndpointsBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllers.endpointutil.EndpointPods;
import io.k4j.controllers.endpointutil.ObjectWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class EndpointsControllerTest {
    private final CacheImpl<Service> services = new CacheImpl<>();
    private final CacheImpl<Pod> pods = new CacheImpl<>();
    private final CacheImpl<Endpoints> endpoints = new CacheImpl<>();
    private final List<String> writes = new ArrayList<>();
    private final EndpointsController controller = new EndpointsController(new Lister<>(services), new Lister<>(pods), new Lister<>(endpoints),
            new ObjectWriter<>() {
                @Override
                public Endpoints create(Endpoints object) {
                    writes.add("create " + object.getMetadata().getName());
                    endpoints.put(object);
                    return object;
                }

                @Override
                public Endpoints update(Endpoints object) {
                    writes.add("update " + object.getMetadata().getName());
                    endpoints.put(object);
                    return object;
                }

                @Override
                public void delete(String namespace, String name) {
                    writes.add("delete " + name);
                    endpoints.list().stream().filter(object -> object.getMetadata().getName().equals(name)).toList().forEach(endpoints::remove);
                }
            });

    @AfterEach
    void close() {
        controller.close();
    }

    static Service service(String name, boolean headless, Map<String, String> selector, ServicePortBuilder... ports) {
        ServiceBuilder builder = new ServiceBuilder().withNewMetadata().withNamespace("default").withName(name).withUid("uid-" + name)
                .withCreationTimestamp("2026-01-01T00:00:00Z").addToLabels("app", name).endMetadata()
                .withNewSpec().withType("ClusterIP").withClusterIP(headless ? "None" : "10.96.0.50").withSelector(selector).endSpec();
        for (ServicePortBuilder port : ports) {
            builder.editSpec().addToPorts(port.build()).endSpec();
        }
        return builder.build();
    }

    static Pod pod(String name, String ip, boolean ready, Map<String, String> labels) {
        return new PodBuilder().withNewMetadata().withNamespace("default").withName(name).withUid("uid-" + name).withResourceVersion("1")
                .withLabels(labels).endMetadata()
                .withNewSpec().withNodeName("node-1").addNewContainer().withName("c").withImage("nginx")
                .addNewPort().withName("http").withContainerPort(8080).endPort().endContainer().endSpec()
                .withNewStatus().withPhase("Running").withPodIP(ip)
                .addNewCondition().withType("Ready").withStatus(ready ? "True" : "False").withLastTransitionTime("2026-01-01T00:00:0" + (ready ? 5 : 6) + "Z").endCondition()
                .endStatus().build();
    }

    private static List<String> ips(List<EndpointAddress> addresses) {
        return addresses == null ? List.of() : addresses.stream().map(EndpointAddress::getIp).toList();
    }

    @Test
    void listsReadyAndNotReadyPodsWithNamedPortsResolvedPerPod() {
        services.put(service("web", false, Map.of("app", "web"), new ServicePortBuilder().withName("http").withPort(80).withProtocol("TCP")
                .withTargetPort(new IntOrString("http"))));
        pods.put(pod("web-1", "10.42.0.12", true, Map.of("app", "web")));
        pods.put(pod("web-2", "10.42.0.3", true, Map.of("app", "web")));
        pods.put(pod("web-3", "10.42.0.4", false, Map.of("app", "web")));
        Pod withoutPort = new PodBuilder(pod("web-4", "10.42.0.5", true, Map.of("app", "web"))).editSpec().editFirstContainer().withPorts(List.of())
                .endContainer().endSpec().build();
        pods.put(withoutPort);
        pods.put(pod("other", "10.42.0.9", true, Map.of("app", "other")));

        controller.sync("default/web");

        Endpoints written = endpoints.getByKey("default/web");
        assertThat(writes).containsExactly("create web");
        assertThat(written.getSubsets()).hasSize(1);
        EndpointSubset subset = written.getSubsets().get(0);
        assertThat(ips(subset.getAddresses())).containsExactly("10.42.0.3", "10.42.0.12");
        assertThat(ips(subset.getNotReadyAddresses())).containsExactly("10.42.0.4");
        assertThat(subset.getPorts()).singleElement().satisfies(port -> {
            assertThat(port.getPort()).isEqualTo(8080);
            assertThat(port.getName()).isEqualTo("http");
        });
        assertThat(subset.getAddresses().get(0).getTargetRef().getName()).isEqualTo("web-2");
        assertThat(subset.getAddresses().get(0).getNodeName()).isEqualTo("node-1");
        assertThat(written.getMetadata().getLabels()).containsEntry("app", "web");
        assertThat(written.getMetadata().getAnnotations()).containsEntry(EndpointPods.LAST_CHANGE_TRIGGER_TIME, "2026-01-01T00:00:00Z");

        // Nothing changed: no write.
        controller.sync("default/web");
        assertThat(writes).containsExactly("create web");

        // Readiness changes move the address.
        pods.put(new PodBuilder(pod("web-3", "10.42.0.4", true, Map.of("app", "web"))).editMetadata().withResourceVersion("2").endMetadata()
                .editStatus().editFirstCondition().withLastTransitionTime("2026-01-01T00:01:00Z").endCondition().endStatus().build());
        controller.sync("default/web");
        assertThat(writes).containsExactly("create web", "update web");
        assertThat(ips(endpoints.getByKey("default/web").getSubsets().get(0).getAddresses())).containsExactly("10.42.0.3", "10.42.0.4", "10.42.0.12");
        assertThat(endpoints.getByKey("default/web").getMetadata().getAnnotations()).containsEntry(EndpointPods.LAST_CHANGE_TRIGGER_TIME, "2026-01-01T00:01:00Z");
    }

    @Test
    void terminatingPodsAreLeftOutUnlessNotReadyAddressesArePublished() {
        Service service = service("web", false, Map.of("app", "web"), new ServicePortBuilder().withPort(80).withProtocol("TCP").withTargetPort(new IntOrString(80)));
        services.put(service);
        pods.put(new PodBuilder(pod("web-1", "10.42.0.2", true, Map.of("app", "web"))).editMetadata().withDeletionTimestamp("2026-01-01T00:02:00Z").endMetadata().build());
        pods.put(pod("web-2", "10.42.0.3", false, Map.of("app", "web")));
        controller.sync("default/web");
        assertThat(ips(endpoints.getByKey("default/web").getSubsets().get(0).getAddresses())).isEmpty();
        assertThat(ips(endpoints.getByKey("default/web").getSubsets().get(0).getNotReadyAddresses())).containsExactly("10.42.0.3");

        services.put(new ServiceBuilder(service).editSpec().withPublishNotReadyAddresses(true).endSpec().build());
        controller.sync("default/web");
        assertThat(ips(endpoints.getByKey("default/web").getSubsets().get(0).getAddresses())).containsExactly("10.42.0.2", "10.42.0.3");
    }

    @Test
    void headlessServicesGetHostnamesOfPodsInTheirSubdomainAndAddressesWithoutPorts() {
        services.put(service("db", true, Map.of("app", "db")));
        pods.put(new PodBuilder(pod("db-0", "10.42.0.7", true, Map.of("app", "db"))).editSpec().withHostname("db-0").withSubdomain("db").endSpec().build());
        controller.sync("default/db");
        Endpoints written = endpoints.getByKey("default/db");
        assertThat(written.getMetadata().getLabels()).containsEntry(EndpointPods.HEADLESS_LABEL, "");
        assertThat(written.getSubsets().get(0).getAddresses().get(0).getHostname()).isEqualTo("db-0");
        assertThat(written.getSubsets().get(0).getPorts()).isNullOrEmpty();
    }

    @Test
    void selectorlessServicesKeepTheirEndpointsAndDeletedServicesLoseThem() {
        services.put(service("external", false, Map.of()));
        endpoints.put(new EndpointsBuilder().withNewMetadata().withNamespace("default").withName("external").endMetadata()
                .addNewSubset().addNewAddress().withIp("192.0.2.1").endAddress().endSubset().build());
        controller.sync("default/external");
        assertThat(writes).isEmpty();
        assertThat(ips(endpoints.getByKey("default/external").getSubsets().get(0).getAddresses())).containsExactly("192.0.2.1");

        services.remove(services.getByKey("default/external"));
        controller.sync("default/external");
        assertThat(writes).containsExactly("delete external");
        assertThat(endpoints.getByKey("default/external")).isNull();
    }

    @Test
    void multiPortServicesGroupPodsByTheirResolvedPorts() {
        services.put(service("web", false, Map.of("app", "web"),
                new ServicePortBuilder().withName("http").withPort(80).withProtocol("TCP").withTargetPort(new IntOrString("http")),
                new ServicePortBuilder().withName("metrics").withPort(9090).withProtocol("TCP").withTargetPort(new IntOrString(9090))));
        pods.put(pod("web-1", "10.42.0.2", true, Map.of("app", "web")));
        pods.put(new PodBuilder(pod("web-2", "10.42.0.3", true, Map.of("app", "web"))).editSpec().editFirstContainer().withPorts(List.of()).endContainer().endSpec().build());
        controller.sync("default/web");
        List<EndpointSubset> subsets = endpoints.getByKey("default/web").getSubsets();
        assertThat(subsets).hasSize(2);
        assertThat(subsets).anySatisfy(subset -> {
            assertThat(ips(subset.getAddresses())).containsExactly("10.42.0.2");
            assertThat(subset.getPorts()).hasSize(2);
        });
        assertThat(subsets).anySatisfy(subset -> {
            assertThat(ips(subset.getAddresses())).containsExactly("10.42.0.3");
            assertThat(subset.getPorts()).singleElement().satisfies(port -> assertThat(port.getName()).isEqualTo("metrics"));
        });
    }
}
