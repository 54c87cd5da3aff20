package io.k4j.scheduler.plugins.tainttoleration;

import static io.k4j.scheduler.testing.TestObjects.node;
import static io.k4j.scheduler.testing.TestObjects.pod;
import static io.k4j.scheduler.testing.TestObjects.withTaints;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.k4j.scheduler.framework.Code;
import io.k4j.scheduler.framework.CycleState;
import io.k4j.scheduler.framework.NodeInfo;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.Status;
import java.util.List;
import org.junit.jupiter.api.Test;

class TaintTolerationTest {
    private final TaintToleration plugin = new TaintToleration();
    private final Taint noSchedule = new TaintBuilder().withKey("dedicated").withValue("gpu").withEffect("NoSchedule").build();

    @Test
    void rejectsUntoleratedNoScheduleTaintWithUpstreamReason() {
        NodeInfo nodeInfo = NodeInfo.of(withTaints(node("a", "1", "1Gi"), noSchedule));

        Status status = plugin.filter(new CycleState(), new PodInfo(pod("p", null, null)), nodeInfo);

        assertThat(status.code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
        assertThat(status.reasons()).containsExactly("node(s) had untolerated taint {dedicated: gpu}");
    }

    @Test
    void acceptsTolerationsByValueOrExists() {
        NodeInfo nodeInfo = NodeInfo.of(withTaints(node("a", "1", "1Gi"), noSchedule));
        Pod equal = pod("equal", null, null);
        equal.getSpec().setTolerations(List.of(new TolerationBuilder().withKey("dedicated").withValue("gpu").withEffect("NoSchedule").build()));
        Pod exists = pod("exists", null, null);
        exists.getSpec().setTolerations(List.of(new TolerationBuilder().withOperator("Exists").build()));
        Pod wrongValue = pod("wrong", null, null);
        wrongValue.getSpec().setTolerations(List.of(new TolerationBuilder().withKey("dedicated").withValue("cpu").build()));

        assertThat(plugin.filter(new CycleState(), new PodInfo(equal), nodeInfo).isSuccess()).isTrue();
        assertThat(plugin.filter(new CycleState(), new PodInfo(exists), nodeInfo).isSuccess()).isTrue();
        assertThat(plugin.filter(new CycleState(), new PodInfo(wrongValue), nodeInfo).isSuccess()).isFalse();
    }

    @Test
    void scorePrefersNodesWithFewerUntoleratedPreferNoScheduleTaints() {
        Taint prefer = new TaintBuilder().withKey("slow").withEffect("PreferNoSchedule").build();
        List<NodeInfo> nodes = List.of(NodeInfo.of(node("clean", "1", "1Gi")), NodeInfo.of(withTaints(node("tainted", "1", "1Gi"), prefer)));
        PodInfo pod = new PodInfo(pod("p", null, null));
        CycleState state = new CycleState();
        plugin.preScore(state, pod, nodes);
        long[] scores = {plugin.score(state, pod, nodes.get(0)), plugin.score(state, pod, nodes.get(1))};

        plugin.normalizeScores(state, pod, nodes, scores);

        assertThat(scores).containsExactly(100, 0);
    }
}
