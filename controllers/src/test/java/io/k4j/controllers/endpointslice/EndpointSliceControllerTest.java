package io.k4j.controllers.endpointslice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllers.endpointutil.EndpointPods;
import io.k4j.controllers.endpointutil.ObjectWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class EndpointSliceControllerTest {
    private final CacheImpl<Service> services = new CacheImpl<>();
    private final CacheImpl<Pod> pods = new CacheImpl<>();
    private final CacheImpl<Node> nodes = new CacheImpl<>();
    private final CacheImpl<EndpointSlice> slices = new CacheImpl<>();
    private final List<String> writes = new ArrayList<>();
    private final AtomicInteger versions = new AtomicInteger(100);
    /** When false, writes do not reach the cache: an informer lagging behind. */
    private boolean cacheFollows = true;
    private final EndpointSliceController controller = new EndpointSliceController(new Lister<>(services), new Lister<>(pods), new Lister<>(nodes),
            new Lister<>(slices), new ObjectWriter<>() {
                @Override
                public EndpointSlice create(EndpointSlice slice) {
                    EndpointSlice created = new EndpointSliceBuilder(slice).editMetadata()
                            .withName(slice.getMetadata().getGenerateName() + versions.incrementAndGet())
                            .withResourceVersion(Integer.toString(versions.get())).endMetadata().build();
                    writes.add("create " + created.getMetadata().getName());
                    if (cacheFollows) {
                        slices.put(created);
                    }
                    return created;
                }

                @Override
                public EndpointSlice update(EndpointSlice slice) {
                    EndpointSlice updated = new EndpointSliceBuilder(slice).editMetadata().withResourceVersion(Integer.toString(versions.incrementAndGet())).endMetadata().build();
                    writes.add("update " + slice.getMetadata().getName());
                    if (cacheFollows) {
                        slices.put(updated);
                    }
                    return updated;
                }

                @Override
                public void delete(String namespace, String name) {
                    writes.add("delete " + name);
                    if (cacheFollows) {
                        slices.list().stream().filter(slice -> slice.getMetadata().getName().equals(name)).toList().forEach(slices::remove);
                    }
                }
            });

    @AfterEach
    void close() {
        controller.close();
    }

    private static Service service() {
        return new ServiceBuilder().withNewMetadata().withNamespace("default").withName("web").withUid("uid-web").withCreationTimestamp("2026-01-01T00:00:00Z")
                .addToLabels("team", "a").endMetadata()
                .withNewSpec().withType("ClusterIP").withClusterIP("10.96.0.50").withSelector(Map.of("app", "web"))
                .addToPorts(new ServicePortBuilder().withName("http").withPort(80).withProtocol("TCP").withTargetPort(new IntOrString("http")).build())
                .endSpec().build();
    }

    private static Pod pod(String name, String ip, boolean ready) {
        return new PodBuilder().withNewMetadata().withNamespace("default").withName(name).withUid("uid-" + name).withLabels(Map.of("app", "web")).endMetadata()
                .withNewSpec().withNodeName("node-1").addNewContainer().withName("c").withImage("nginx")
                .addNewPort().withName("http").withContainerPort(8080).endPort().endContainer().endSpec()
                .withNewStatus().withPhase("Running").withPodIP(ip)
                .addNewCondition().withType("Ready").withStatus(ready ? "True" : "False").withLastTransitionTime("2026-01-01T00:00:05Z").endCondition()
                .endStatus().build();
    }

    private List<EndpointSlice> slicesOfWeb() {
        return slices.list().stream().filter(slice -> "web".equals(slice.getMetadata().getLabels().get(EndpointSliceController.SERVICE_NAME_LABEL))).toList();
    }

    @Test
    void writesLabelledOwnedSlicesWithConditionsAndResolvedPorts() {
        services.put(service());
        nodes.put(new NodeBuilder().withNewMetadata().withName("node-1").addToLabels("topology.kubernetes.io/zone", "zone-a").endMetadata().build());
        pods.put(pod("web-1", "10.42.0.2", true));
        pods.put(pod("web-2", "10.42.0.3", false));
        pods.put(new PodBuilder(pod("web-3", "10.42.0.4", true)).editMetadata().withDeletionTimestamp("2026-01-01T00:03:00Z").endMetadata().build());

        controller.sync("default/web");

        assertThat(slicesOfWeb()).singleElement().satisfies(slice -> {
            assertThat(slice.getAddressType()).isEqualTo("IPv4");
            assertThat(slice.getMetadata().getLabels()).containsEntry(EndpointSliceController.MANAGED_BY_LABEL, "endpointslice-controller.k8s.io")
                    .containsEntry("team", "a");
            assertThat(slice.getMetadata().getOwnerReferences()).singleElement().satisfies(owner -> {
                assertThat(owner.getKind()).isEqualTo("Service");
                assertThat(owner.getController()).isTrue();
            });
            assertThat(slice.getMetadata().getAnnotations()).containsKey(EndpointPods.LAST_CHANGE_TRIGGER_TIME);
            assertThat(slice.getPorts()).singleElement().satisfies(port -> assertThat(port.getPort()).isEqualTo(8080));
            assertThat(slice.getEndpoints()).extracting(endpoint -> endpoint.getAddresses().get(0)).containsExactly("10.42.0.2", "10.42.0.3", "10.42.0.4");
            Endpoint ready = slice.getEndpoints().get(0);
            assertThat(ready.getConditions().getReady()).isTrue();
            assertThat(ready.getZone()).isEqualTo("zone-a");
            assertThat(ready.getNodeName()).isEqualTo("node-1");
            assertThat(slice.getEndpoints().get(1).getConditions().getReady()).isFalse();
            Endpoint terminating = slice.getEndpoints().get(2);
            assertThat(terminating.getConditions().getTerminating()).isTrue();
            assertThat(terminating.getConditions().getServing()).isTrue();
            assertThat(terminating.getConditions().getReady()).isFalse();
        });

        controller.sync("default/web");
        assertThat(writes).hasSize(1);
    }

    @Test
    void splitsAtOneHundredEndpointsAndKeepsAPlaceholderWhenEmpty() {
        services.put(service());
        for (int index = 0; index < 150; index++) {
            pods.put(pod("web-" + index, "10.42." + (index / 200) + "." + (index % 200 + 1), true));
        }
        controller.sync("default/web");
        assertThat(slicesOfWeb()).extracting(slice -> slice.getEndpoints().size()).containsExactlyInAnyOrder(100, 50);

        pods.list().forEach(pods::remove);
        controller.sync("default/web");
        assertThat(slicesOfWeb()).singleElement().satisfies(slice -> {
            assertThat(slice.getEndpoints()).isEmpty();
            assertThat(slice.getPorts()).isEmpty();
        });
    }

    @Test
    void waitsForTheCacheToShowItsOwnWrites() {
        services.put(service());
        pods.put(pod("web-1", "10.42.0.2", true));
        cacheFollows = false;
        controller.sync("default/web");
        pods.put(pod("web-2", "10.42.0.3", true));
        assertThatThrownBy(() -> controller.sync("default/web")).isInstanceOf(EndpointSliceController.StaleCacheException.class);
        assertThat(writes).hasSize(1);
    }

    @Test
    void selectorlessServicesGetNoSlices() {
        services.put(new ServiceBuilder(service()).editSpec().withSelector(Map.of()).endSpec().build());
        pods.put(pod("web-1", "10.42.0.2", true));
        controller.sync("default/web");
        assertThat(writes).isEmpty();
    }
}
