package io.k4j.scheduler.framework;

import static io.k4j.scheduler.testing.TestObjects.node;
import static io.k4j.scheduler.testing.TestObjects.withTaints;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import org.junit.jupiter.api.Test;

class NodeInfoTest {
    private final Taint noSchedule = new TaintBuilder().withKey("dedicated").withEffect("NoSchedule").build();

    @Test
    void keepsTheTaintsAndCordonOfTheCurrentNode() {
        Node cordoned = withTaints(node("a", "1", "1Gi"), noSchedule);
        cordoned.getSpec().setUnschedulable(true);
        NodeInfo nodeInfo = NodeInfo.of(cordoned);
        NodeInfo snapshot = nodeInfo.copy();

        nodeInfo.setNode(node("a", "1", "1Gi"));

        assertThat(snapshot.taints()).containsExactly(noSchedule);
        assertThat(snapshot.unschedulable()).isTrue();
        assertThat(nodeInfo.taints()).isEmpty();
        assertThat(nodeInfo.unschedulable()).isFalse();

        snapshot.removeNode();
        assertThat(snapshot.taints()).isEmpty();
        assertThat(snapshot.unschedulable()).isFalse();
    }
}
