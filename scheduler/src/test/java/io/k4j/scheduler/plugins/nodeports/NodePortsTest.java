package io.k4j.scheduler.plugins.nodeports;

import static io.k4j.scheduler.testing.TestObjects.node;
import static io.k4j.scheduler.testing.TestObjects.onNode;
import static io.k4j.scheduler.testing.TestObjects.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.k4j.scheduler.framework.CycleState;
import io.k4j.scheduler.framework.NodeInfo;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.Status;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodePortsTest {
    private final NodePorts plugin = new NodePorts();

    private static Pod withHostPort(Pod pod, String ip, int port) {
        pod.getSpec().getContainers().get(0).setPorts(List.of(new ContainerPortBuilder().withContainerPort(80).withHostPort(port).withHostIP(ip).build()));
        return pod;
    }

    @Test
    void rejectsATakenPortAndSkipsPodsWithoutHostPorts() {
        NodeInfo nodeInfo = NodeInfo.of(node("a", "1", "1Gi"), new PodInfo(onNode(withHostPort(pod("web", null, null), "", 8080), "a")));
        PodInfo wanting = new PodInfo(withHostPort(pod("p", null, null), "10.0.0.1", 8080));
        PodInfo other = new PodInfo(withHostPort(pod("q", null, null), "", 9090));

        Status status = plugin.filter(new CycleState(), wanting, nodeInfo);

        assertThat(status.reasons()).containsExactly("node(s) didn't have free ports for the requested pod ports");
        assertThat(plugin.filter(new CycleState(), other, nodeInfo).isSuccess()).isTrue();
        assertThat(plugin.preFilter(new CycleState(), new PodInfo(pod("none", null, null)), List.of(nodeInfo)).isSkip()).isTrue();
    }
}
