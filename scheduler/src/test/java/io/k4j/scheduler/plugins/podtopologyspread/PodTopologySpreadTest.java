package io.k4j.scheduler.plugins.podtopologyspread;

import static io.k4j.scheduler.testing.TestObjects.node;
import static io.k4j.scheduler.testing.TestObjects.onNode;
import static io.k4j.scheduler.testing.TestObjects.pod;
import static io.k4j.scheduler.testing.TestObjects.withLabels;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.k4j.scheduler.framework.Code;
import io.k4j.scheduler.framework.CycleState;
import io.k4j.scheduler.framework.Framework;
import io.k4j.scheduler.framework.NodeInfo;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.Snapshot;
import io.k4j.scheduler.framework.Status;
import io.k4j.scheduler.testing.FakeSchedulerClient;
import io.k4j.scheduler.testing.SimpleNominator;
import io.k4j.scheduler.testing.TestFrameworks;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodTopologySpreadTest {
    private final Framework framework = TestFrameworks.defaultFramework(new FakeSchedulerClient(), new SimpleNominator());
    private final PodTopologySpread plugin = new PodTopologySpread(framework, PodTopologySpread.SYSTEM_DEFAULT_CONSTRAINTS);

    private static Pod spread(String name, String when) {
        Pod pod = withLabels(pod(name, null, null), Map.of("app", "web"));
        pod.getSpec().setTopologySpreadConstraints(List.of(new TopologySpreadConstraintBuilder().withMaxSkew(1).withTopologyKey("zone")
                .withWhenUnsatisfiable(when).withNewLabelSelector().addToMatchLabels("app", "web").endLabelSelector().build()));
        return pod;
    }

    private static PodInfo web(String name, String node) {
        return new PodInfo(onNode(withLabels(pod(name, null, null), Map.of("app", "web")), node));
    }

    @Test
    void doNotScheduleRejectsNodesThatWouldExceedTheSkew() {
        NodeInfo a = NodeInfo.of(node("a", "1", "1Gi", Map.of("zone", "a")), web("w1", "a"));
        NodeInfo b = NodeInfo.of(node("b", "1", "1Gi", Map.of("zone", "b")));
        NodeInfo unlabeled = NodeInfo.of(node("c", "1", "1Gi"));
        List<NodeInfo> nodes = List.of(a, b, unlabeled);
        framework.setSnapshot(Snapshot.of(nodes));
        PodInfo incoming = new PodInfo(spread("p", "DoNotSchedule"));
        CycleState state = new CycleState();
        plugin.preFilter(state, incoming, nodes);

        assertThat(plugin.filter(state, incoming, a).reasons()).containsExactly("node(s) didn't match pod topology spread constraints");
        assertThat(plugin.filter(state, incoming, b).isSuccess()).isTrue();
        Status missingLabel = plugin.filter(state, incoming, unlabeled);
        assertThat(missingLabel.code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
        assertThat(missingLabel.reasons()).containsExactly("node(s) didn't match pod topology spread constraints (missing required label)");
    }

    @Test
    void scheduleAnywayPrefersTheEmptierDomain() {
        NodeInfo a = NodeInfo.of(node("a", "1", "1Gi", Map.of("zone", "a")), web("w1", "a"), web("w2", "a"));
        NodeInfo b = NodeInfo.of(node("b", "1", "1Gi", Map.of("zone", "b")));
        List<NodeInfo> nodes = List.of(a, b);
        framework.setSnapshot(Snapshot.of(nodes));
        PodInfo incoming = new PodInfo(spread("p", "ScheduleAnyway"));
        CycleState state = new CycleState();
        assertThat(plugin.preScore(state, incoming, nodes).isSuccess()).isTrue();
        long[] scores = {plugin.score(state, incoming, a), plugin.score(state, incoming, b)};

        plugin.normalizeScores(state, incoming, nodes, scores);

        assertThat(scores[1]).isGreaterThan(scores[0]);
        assertThat(scores[1]).isEqualTo(100);
    }

    @Test
    void podsWithoutConstraintsOrOwnersSkipSpreading() {
        NodeInfo a = NodeInfo.of(node("a", "1", "1Gi", Map.of("zone", "a")));
        framework.setSnapshot(Snapshot.of(List.of(a)));

        assertThat(plugin.preFilter(new CycleState(), new PodInfo(pod("p", null, null)), List.of(a)).isSkip()).isTrue();
        assertThat(plugin.preScore(new CycleState(), new PodInfo(pod("p", null, null)), List.of(a)).isSkip()).isTrue();
    }
}
