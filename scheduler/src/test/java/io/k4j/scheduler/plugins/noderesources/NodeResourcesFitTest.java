package io.k4j.scheduler.plugins.noderesources;

import static io.k4j.scheduler.testing.TestObjects.node;
import static io.k4j.scheduler.testing.TestObjects.onNode;
import static io.k4j.scheduler.testing.TestObjects.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.k4j.scheduler.framework.Code;
import io.k4j.scheduler.framework.CycleState;
import io.k4j.scheduler.framework.NodeInfo;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.Status;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeResourcesFitTest {
    private final NodeResourcesFit plugin = NodeResourcesFit.defaults();

    @Test
    void rejectsWhenTheRestDoesNotFitButPreemptionCouldHelp() {
        NodeInfo nodeInfo = NodeInfo.of(node("a", "2", "4Gi"), new PodInfo(onNode(pod("existing", "1500m", null), "a")));

        Status status = plugin.filter(new CycleState(), new PodInfo(pod("p", "1", null)), nodeInfo);

        assertThat(status.code()).isEqualTo(Code.UNSCHEDULABLE);
        assertThat(status.reasons()).containsExactly("Insufficient cpu");
    }

    @Test
    void requestsBeyondTheWholeNodeAreUnresolvable() {
        Status status = plugin.filter(new CycleState(), new PodInfo(pod("p", "3", "8Gi")), NodeInfo.of(node("a", "2", "4Gi")));

        assertThat(status.code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
        assertThat(status.reasons()).containsExactly("Insufficient cpu", "Insufficient memory");
    }

    @Test
    void acceptsWhatFits() {
        assertThat(plugin.filter(new CycleState(), new PodInfo(pod("p", "2", "4Gi")), NodeInfo.of(node("a", "2", "4Gi"))).isSuccess()).isTrue();
    }

    @Test
    void leastAllocatedPrefersEmptierNodesAndMostAllocatedFullerOnes() {
        NodeInfo empty = NodeInfo.of(node("empty", "4", "8Gi"));
        NodeInfo busy = NodeInfo.of(node("busy", "4", "8Gi"), new PodInfo(onNode(pod("existing", "2", "4Gi"), "busy")));
        PodInfo pod = new PodInfo(pod("p", "1", "2Gi"));
        NodeResourcesFit most = new NodeResourcesFit(ScoringStrategyType.MOST_ALLOCATED, NodeResourcesFit.DEFAULT_RESOURCES, java.util.Set.of(), java.util.Set.of());

        assertThat(plugin.score(new CycleState(), pod, empty)).isEqualTo(75);
        assertThat(plugin.score(new CycleState(), pod, busy)).isEqualTo(25);
        assertThat(most.score(new CycleState(), pod, empty)).isEqualTo(25);
        assertThat(most.score(new CycleState(), pod, busy)).isEqualTo(75);
    }

    @Test
    void argsSelectTheStrategyAndRejectUnknownOnesNamingTheField() throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        NodeResourcesFit configured = NodeResourcesFit.fromArgs(mapper.readTree("{\"scoringStrategy\":{\"type\":\"MostAllocated\",\"resources\":[{\"name\":\"cpu\",\"weight\":2}]}}"));

        assertThat(configured.strategy()).isEqualTo(ScoringStrategyType.MOST_ALLOCATED);
        assertThatThrownBy(() -> NodeResourcesFit.fromArgs(mapper.readTree("{\"scoringStrategy\":{\"type\":\"Random\"}}")))
                .hasMessageStartingWith("scoringStrategy.type: Unsupported value: \"Random\"");
        assertThatThrownBy(() -> NodeResourcesFit.fromArgs(mapper.readTree("{\"scoringStrategy\":{\"resources\":[{\"name\":\"cpu\",\"weight\":0}]}}")))
                .hasMessageStartingWith("scoringStrategy.resources[0].weight: Invalid value: 0");
    }

    @Test
    void requestedToCapacityRatioFollowsTheShape() throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        NodeResourcesFit binPacking = NodeResourcesFit.fromArgs(mapper.readTree("{\"scoringStrategy\":{\"type\":\"RequestedToCapacityRatio\","
                + "\"requestedToCapacityRatio\":{\"shape\":[{\"utilization\":0,\"score\":0},{\"utilization\":100,\"score\":10}]}}}"));
        NodeInfo busy = NodeInfo.of(node("busy", "4", "8Gi"), new PodInfo(onNode(pod("existing", "2", "4Gi"), "busy")));

        assertThat(binPacking.strategy()).isEqualTo(ScoringStrategyType.REQUESTED_TO_CAPACITY_RATIO);
        assertThat(binPacking.score(new CycleState(), new PodInfo(pod("p", "1", "2Gi")), busy)).isEqualTo(75);
        assertThat(binPacking.shapeScore(50)).isEqualTo(50);
        assertThatThrownBy(() -> NodeResourcesFit.fromArgs(mapper.readTree("{\"scoringStrategy\":{\"type\":\"RequestedToCapacityRatio\","
                + "\"requestedToCapacityRatio\":{\"shape\":[{\"utilization\":50,\"score\":1},{\"utilization\":10,\"score\":2}]}}}")))
                .hasMessageStartingWith("scoringStrategy.requestedToCapacityRatio.shape[1].utilization: Invalid value: 10");
    }

    @Test
    void balancedAllocationPrefersEvenUse() {
        NodeResourcesBalancedAllocation balanced = new NodeResourcesBalancedAllocation(NodeResourcesFit.DEFAULT_RESOURCES);
        NodeInfo node = NodeInfo.of(node("a", "4", "4Gi"));

        assertThat(balanced.score(new CycleState(), new PodInfo(pod("even", "2", "2Gi")), node)).isEqualTo(100);
        assertThat(balanced.score(new CycleState(), new PodInfo(pod("skewed", "4", null)), node)).isEqualTo(50);
        assertThat(balanced.preScore(new CycleState(), new PodInfo(pod("none", null, null)), List.of(node)).isSkip()).isTrue();
    }
}
