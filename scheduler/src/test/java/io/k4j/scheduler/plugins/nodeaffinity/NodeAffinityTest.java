package io.k4j.scheduler.plugins.nodeaffinity;

import static io.k4j.scheduler.testing.TestObjects.node;
import static io.k4j.scheduler.testing.TestObjects.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.k4j.scheduler.framework.Code;
import io.k4j.scheduler.framework.CycleState;
import io.k4j.scheduler.framework.NodeInfo;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.Status;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeAffinityTest {
    private final NodeAffinity plugin = new NodeAffinity(null);
    private final NodeInfo zoneA = NodeInfo.of(node("a", "1", "1Gi", Map.of("zone", "a")));
    private final NodeInfo zoneB = NodeInfo.of(node("b", "1", "1Gi", Map.of("zone", "b")));

    private Status filter(Pod pod, NodeInfo nodeInfo) {
        CycleState state = new CycleState();
        PodInfo podInfo = new PodInfo(pod);
        Status preFilter = plugin.preFilter(state, podInfo, List.of(zoneA, zoneB));
        if (preFilter.isSkip()) {
            return Status.SUCCESS;
        }
        return plugin.filter(state, podInfo, nodeInfo);
    }

    @Test
    void nodeSelectorMustMatch() {
        Pod pod = pod("p", null, null);
        pod.getSpec().setNodeSelector(Map.of("zone", "a"));

        assertThat(filter(pod, zoneA).isSuccess()).isTrue();
        Status rejected = filter(pod, zoneB);
        assertThat(rejected.code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
        assertThat(rejected.reasons()).containsExactly("node(s) didn't match Pod's node affinity/selector");
    }

    @Test
    void requiredTermsAreOredAndExpressionsAnded() {
        Pod pod = pod("p", null, null);
        pod.getSpec().setAffinity(new AffinityBuilder().withNewNodeAffinity().withNewRequiredDuringSchedulingIgnoredDuringExecution()
                .addNewNodeSelectorTerm().addNewMatchExpression().withKey("zone").withOperator("In").withValues("b").endMatchExpression().endNodeSelectorTerm()
                .addNewNodeSelectorTerm().addNewMatchExpression().withKey("zone").withOperator("DoesNotExist").endMatchExpression().endNodeSelectorTerm()
                .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().build());

        assertThat(filter(pod, zoneA).isSuccess()).isFalse();
        assertThat(filter(pod, zoneB).isSuccess()).isTrue();
    }

    @Test
    void metadataNameFieldsNarrowTheNodesInPreFilter() {
        Pod pod = pod("p", null, null);
        pod.getSpec().setAffinity(new AffinityBuilder().withNewNodeAffinity().withNewRequiredDuringSchedulingIgnoredDuringExecution()
                .addNewNodeSelectorTerm().addNewMatchField().withKey("metadata.name").withOperator("In").withValues("b").endMatchField().endNodeSelectorTerm()
                .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().build());
        CycleState state = new CycleState();
        PodInfo podInfo = new PodInfo(pod);

        plugin.preFilter(state, podInfo, List.of(zoneA, zoneB));

        assertThat(plugin.preFilterResult(state, podInfo).nodeNames()).containsExactly("b");
    }

    @Test
    void preferredTermsScoreByWeight() {
        Pod pod = pod("p", null, null);
        pod.getSpec().setAffinity(new AffinityBuilder().withNewNodeAffinity()
                .addNewPreferredDuringSchedulingIgnoredDuringExecution().withWeight(20).withNewPreference().addNewMatchExpression()
                .withKey("zone").withOperator("In").withValues("b").endMatchExpression().endPreference().endPreferredDuringSchedulingIgnoredDuringExecution()
                .endNodeAffinity().build());
        PodInfo podInfo = new PodInfo(pod);
        CycleState state = new CycleState();
        List<NodeInfo> nodes = List.of(zoneA, zoneB);
        plugin.preScore(state, podInfo, nodes);
        long[] scores = {plugin.score(state, podInfo, zoneA), plugin.score(state, podInfo, zoneB)};

        plugin.normalizeScores(state, podInfo, nodes, scores);

        assertThat(scores).containsExactly(0, 100);
    }
}
