package io.k4j.scheduler.framework;

import static io.k4j.scheduler.testing.TestObjects.node;
import static io.k4j.scheduler.testing.TestObjects.pod;
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

    @Test
    void theResourceFiguresKeptInlineFollowTheResourcesTheyCopy() {
        NodeInfo nodeInfo = NodeInfo.of(node("a", "4", "8Gi"));
        PodInfo small = new PodInfo(pod("small", "250m", "1Gi"));
        PodInfo unrequested = new PodInfo(pod("unrequested", null, null));
        nodeInfo.addPod(small);
        nodeInfo.addPod(unrequested);
        NodeInfo snapshot = nodeInfo.copy();

        nodeInfo.removePod(small.uid());
        nodeInfo.setNode(node("a", "8", "16Gi"));

        for (NodeInfo info : java.util.List.of(nodeInfo, snapshot)) {
            assertThat(info.podCount()).isEqualTo(info.pods().size());
            assertThat(info.allocatableMilliCpu()).isEqualTo(info.allocatable().milliCpu);
            assertThat(info.allocatableMemory()).isEqualTo(info.allocatable().memory);
            assertThat(info.allowedPodNumber()).isEqualTo(info.allocatable().allowedPodNumber);
            assertThat(info.requestedMilliCpu()).isEqualTo(info.requested().milliCpu);
            assertThat(info.requestedMemory()).isEqualTo(info.requested().memory);
            assertThat(info.nonZeroRequestedMilliCpu()).isEqualTo(info.nonZeroRequested().milliCpu);
            assertThat(info.nonZeroRequestedMemory()).isEqualTo(info.nonZeroRequested().memory);
        }
        assertThat(snapshot.podCount()).isEqualTo(2);
        assertThat(snapshot.requestedMilliCpu()).isEqualTo(250);
        assertThat(snapshot.allocatableMilliCpu()).isEqualTo(4000);
        assertThat(nodeInfo.podCount()).isEqualTo(1);
        assertThat(nodeInfo.requestedMilliCpu()).isZero();
        // A pod without requests counts as upstream's defaults (100m, 200 MiB) in the non-zero figures.
        assertThat(nodeInfo.nonZeroRequestedMilliCpu()).isEqualTo(100);
        assertThat(nodeInfo.allocatableMilliCpu()).isEqualTo(8000);
    }
}
