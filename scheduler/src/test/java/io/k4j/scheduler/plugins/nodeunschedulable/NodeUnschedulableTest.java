package io.k4j.scheduler.plugins.nodeunschedulable;

import static io.k4j.scheduler.testing.TestObjects.node;
import static io.k4j.scheduler.testing.TestObjects.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.k4j.scheduler.framework.CycleState;
import io.k4j.scheduler.framework.NodeInfo;
import io.k4j.scheduler.framework.PodInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeUnschedulableTest {
    @Test
    void cordonedNodesRejectPodsThatDoNotTolerateIt() {
        Node cordoned = node("a", "1", "1Gi");
        cordoned.getSpec().setUnschedulable(true);
        Pod tolerating = pod("t", null, null);
        tolerating.getSpec().setTolerations(List.of(new TolerationBuilder().withKey("node.kubernetes.io/unschedulable").withOperator("Exists").withEffect("NoSchedule").build()));
        NodeUnschedulable plugin = new NodeUnschedulable();

        assertThat(plugin.filter(new CycleState(), new PodInfo(pod("p", null, null)), NodeInfo.of(cordoned)).reasons()).containsExactly("node(s) were unschedulable");
        assertThat(plugin.filter(new CycleState(), new PodInfo(tolerating), NodeInfo.of(cordoned)).isSuccess()).isTrue();
    }
}
