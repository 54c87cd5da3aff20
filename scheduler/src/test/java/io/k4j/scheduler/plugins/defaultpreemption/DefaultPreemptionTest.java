package io.k4j.scheduler.plugins.defaultpreemption;

import static io.k4j.scheduler.testing.TestObjects.node;
import static io.k4j.scheduler.testing.TestObjects.onNode;
import static io.k4j.scheduler.testing.TestObjects.pod;
import static io.k4j.scheduler.testing.TestObjects.withLabels;
import static io.k4j.scheduler.testing.TestObjects.withPriority;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.k4j.scheduler.framework.CycleState;
import io.k4j.scheduler.framework.Framework;
import io.k4j.scheduler.framework.NodeInfo;
import io.k4j.scheduler.framework.NodeToStatus;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.PostFilterResult;
import io.k4j.scheduler.framework.Snapshot;
import io.k4j.scheduler.testing.FakeSchedulerClient;
import io.k4j.scheduler.testing.SimpleNominator;
import io.k4j.scheduler.testing.TestFrameworks;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DefaultPreemptionTest {
    private final FakeSchedulerClient client = new FakeSchedulerClient();
    private final SimpleNominator nominator = new SimpleNominator();
    private final Framework framework = TestFrameworks.defaultFramework(client, nominator);
    private final DefaultPreemption plugin = new DefaultPreemption(framework, 10, 100);

    private static PodInfo running(String name, String nodeName, int priority, String cpu) {
        return new PodInfo(onNode(withPriority(pod(name, cpu, null), priority), nodeName));
    }

    private PostFilterResult preempt(PodInfo preemptor, List<NodeInfo> nodes) {
        framework.setSnapshot(Snapshot.of(nodes));
        CycleState state = new CycleState();
        framework.runPreFilterPlugins(state, preemptor, nodes);
        NodeToStatus statuses = new NodeToStatus();
        for (NodeInfo nodeInfo : nodes) {
            statuses.set(nodeInfo.name(), framework.runFilterPlugins(state, preemptor, nodeInfo));
        }
        return plugin.postFilter(state, preemptor, statuses);
    }

    @Test
    void evictsTheFewestLowestPriorityPodsAndNominatesTheNode() {
        NodeInfo a = NodeInfo.of(node("a", "2", "4Gi"), running("a-low", "a", 1, "1"), running("a-mid", "a", 5, "1"));
        NodeInfo b = NodeInfo.of(node("b", "2", "4Gi"), running("b-mid", "b", 5, "1"), running("b-mid2", "b", 5, "1"));
        PodInfo preemptor = new PodInfo(withPriority(pod("high", "1", null), 10));

        PostFilterResult result = preempt(preemptor, List.of(a, b));

        assertThat(result.status().isSuccess()).isTrue();
        assertThat(result.nominatedNodeName()).isEqualTo("a");
        assertThat(client.deletedPods).containsExactly("default/a-low");
        assertThat(client.events).anySatisfy(event -> {
            assertThat(event.reason()).isEqualTo("Preempted");
            assertThat(event.message()).isEqualTo("Preempted by pod uid-high on node a");
        });
    }

    @Test
    void reportsWhyPreemptionCannotHelp() {
        NodeInfo a = NodeInfo.of(node("a", "2", "4Gi"), running("a-high", "a", 100, "2"));
        NodeInfo small = NodeInfo.of(node("small", "1", "4Gi"));
        PodInfo preemptor = new PodInfo(withPriority(pod("p", "2", null), 10));

        PostFilterResult result = preempt(preemptor, List.of(a, small));

        assertThat(result.status().isSuccess()).isFalse();
        assertThat(result.status().message()).isEqualTo("preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, "
                + "1 Preemption is not helpful for scheduling.");
        assertThat(client.deletedPods).isEmpty();
    }

    @Test
    void preemptionPolicyNeverIsNotEligible() {
        NodeInfo a = NodeInfo.of(node("a", "1", "4Gi"), running("low", "a", 1, "1"));
        PodInfo preemptor = new PodInfo(new io.fabric8.kubernetes.api.model.PodBuilder(withPriority(pod("p", "1", null), 10))
                .editSpec().withPreemptionPolicy("Never").endSpec().build());

        assertThat(preempt(preemptor, List.of(a)).status().message()).isEqualTo("not eligible due to preemptionPolicy=Never.");
    }

    @Test
    void podsProtectedByABudgetAreSpilledLast() {
        PodInfo protectedPod = new PodInfo(onNode(withLabels(withPriority(pod("protected", "1", null), 1), Map.of("app", "db")), "a"));
        PodInfo other = running("other", "a", 1, "1");
        PodDisruptionBudget budget = new PodDisruptionBudgetBuilder().withNewMetadata().withName("db").withNamespace("default").endMetadata()
                .withNewSpec().withNewSelector().addToMatchLabels("app", "db").endSelector().endSpec()
                .withNewStatus().withDisruptionsAllowed(0).endStatus().build();
        List<PodInfo> violating = new ArrayList<>();
        List<PodInfo> nonViolating = new ArrayList<>();

        DefaultPreemption.splitByBudgets(List.of(protectedPod, other), List.of(budget), violating, nonViolating);

        assertThat(violating).extracting(PodInfo::name).containsExactly("protected");
        assertThat(nonViolating).extracting(PodInfo::name).containsExactly("other");
    }

    @Test
    void candidateSelectionPrefersFewerViolationsThenLowerPriorities() {
        DefaultPreemption.Candidate violating = new DefaultPreemption.Candidate("a", List.of(running("x", "a", 1, "1")), 1);
        DefaultPreemption.Candidate higher = new DefaultPreemption.Candidate("b", List.of(running("y", "b", 5, "1")), 0);
        DefaultPreemption.Candidate lower = new DefaultPreemption.Candidate("c", List.of(running("z", "c", 2, "1"), running("w", "c", 2, "1")), 0);

        assertThat(DefaultPreemption.selectCandidate(List.of(violating, higher, lower)).nodeName()).isEqualTo("c");
    }
}
