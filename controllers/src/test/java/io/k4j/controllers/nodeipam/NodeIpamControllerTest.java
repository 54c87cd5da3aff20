package io.k4j.controllers.nodeipam;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.testing.FakeEventRecorder;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeIpamControllerTest {
    private final CacheImpl<Node> cache = new CacheImpl<>();
    private final Map<String, String> written = new LinkedHashMap<>();
    private final FakeEventRecorder events = new FakeEventRecorder();

    @Test
    void assignsFreeCidrsAroundThoseNodesAlreadyHave() {
        cache.put(node("a", "10.42.0.0/24"));
        cache.put(node("b", null));
        NodeIpamController controller = controller("10.42.0.0/16");

        controller.occupyExisting();
        controller.sync("b");
        controller.sync("a");

        assertThat(written).containsExactly(Map.entry("b", "10.42.1.0/24"));
    }

    @Test
    void reportsAnExhaustedRangeAndRetries() {
        cache.put(node("a", "10.42.0.0/24"));
        cache.put(node("b", null));
        NodeIpamController controller = controller("10.42.0.0/24");
        controller.occupyExisting();

        assertThatThrownBy(() -> controller.sync("b")).hasMessageContaining("no pod CIDR left");
        assertThat(events.events()).containsExactly("Normal CIDRNotAvailable Node b status is now: CIDRNotAvailable");
        assertThat(written).isEmpty();
    }

    private NodeIpamController controller(String clusterCidr) {
        return new NodeIpamController(CidrSet.parse(clusterCidr, 24), new Lister<>(cache),
                (node, cidr) -> written.put(node.getMetadata().getName(), cidr), events);
    }

    private static Node node(String name, String podCidr) {
        return new NodeBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec().withPodCIDR(podCidr).endSpec().build();
    }
}
