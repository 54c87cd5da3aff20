package io.k4j.scheduler.plugins.interpodaffinity;

import static io.k4j.scheduler.testing.TestObjects.node;
import static io.k4j.scheduler.testing.TestObjects.onNode;
import static io.k4j.scheduler.testing.TestObjects.pod;
import static io.k4j.scheduler.testing.TestObjects.withLabels;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Pod;
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

class InterPodAffinityTest {
    private final Framework framework = TestFrameworks.defaultFramework(new FakeSchedulerClient(), new SimpleNominator());
    private final InterPodAffinity plugin = new InterPodAffinity(framework, 1, false);

    private static Pod antiAffine(Pod pod, String app) {
        pod.getSpec().setAffinity(new AffinityBuilder().withNewPodAntiAffinity().addNewRequiredDuringSchedulingIgnoredDuringExecution()
                .withTopologyKey("zone").withNewLabelSelector().addToMatchLabels("app", app).endLabelSelector()
                .endRequiredDuringSchedulingIgnoredDuringExecution().endPodAntiAffinity().build());
        return pod;
    }

    private static Pod affine(Pod pod, String app) {
        pod.getSpec().setAffinity(new AffinityBuilder().withNewPodAffinity().addNewRequiredDuringSchedulingIgnoredDuringExecution()
                .withTopologyKey("zone").withNewLabelSelector().addToMatchLabels("app", app).endLabelSelector()
                .endRequiredDuringSchedulingIgnoredDuringExecution().endPodAffinity().build());
        return pod;
    }

    private Status filter(PodInfo pod, List<NodeInfo> nodes, NodeInfo target) {
        framework.setSnapshot(Snapshot.of(nodes));
        CycleState state = new CycleState();
        Status preFilter = plugin.preFilter(state, pod, nodes);
        if (preFilter.isSkip()) {
            return Status.SUCCESS;
        }
        return plugin.filter(state, pod, target);
    }

    @Test
    void antiAffinityKeepsPodsOutOfTheDomainOfMatchingPods() {
        NodeInfo a1 = NodeInfo.of(node("a1", "1", "1Gi", Map.of("zone", "a")), new PodInfo(onNode(withLabels(pod("db", null, null), Map.of("app", "db")), "a1")));
        NodeInfo a2 = NodeInfo.of(node("a2", "1", "1Gi", Map.of("zone", "a")));
        NodeInfo b1 = NodeInfo.of(node("b1", "1", "1Gi", Map.of("zone", "b")));
        PodInfo incoming = new PodInfo(antiAffine(pod("p", null, null), "db"));

        assertThat(filter(incoming, List.of(a1, a2, b1), a2).reasons()).containsExactly("node(s) didn't match pod anti-affinity rules");
        assertThat(filter(incoming, List.of(a1, a2, b1), b1).isSuccess()).isTrue();
    }

    @Test
    void existingPodsAntiAffinityProtectsTheirDomain() {
        PodInfo existing = new PodInfo(onNode(antiAffine(pod("loner", null, null), "web"), "a1"));
        NodeInfo a1 = NodeInfo.of(node("a1", "1", "1Gi", Map.of("zone", "a")), existing);
        NodeInfo b1 = NodeInfo.of(node("b1", "1", "1Gi", Map.of("zone", "b")));
        PodInfo web = new PodInfo(withLabels(pod("web", null, null), Map.of("app", "web")));

        assertThat(filter(web, List.of(a1, b1), a1).reasons()).containsExactly("node(s) didn't satisfy existing pods anti-affinity rules");
        assertThat(filter(web, List.of(a1, b1), b1).isSuccess()).isTrue();
    }

    @Test
    void affinityRequiresAMatchingPodInTheDomainExceptForTheFirstOfAGroup() {
        NodeInfo a1 = NodeInfo.of(node("a1", "1", "1Gi", Map.of("zone", "a")), new PodInfo(onNode(withLabels(pod("cache", null, null), Map.of("app", "cache")), "a1")));
        NodeInfo b1 = NodeInfo.of(node("b1", "1", "1Gi", Map.of("zone", "b")));
        PodInfo nearCache = new PodInfo(affine(pod("near", null, null), "cache"));
        PodInfo firstOfGroup = new PodInfo(withLabels(affine(pod("first", null, null), "group"), Map.of("app", "group")));

        assertThat(filter(nearCache, List.of(a1, b1), a1).isSuccess()).isTrue();
        assertThat(filter(nearCache, List.of(a1, b1), b1).reasons()).containsExactly("node(s) didn't match pod affinity rules");
        assertThat(filter(firstOfGroup, List.of(a1, b1), b1).isSuccess()).isTrue();
    }

    @Test
    void preFilterExtensionsUpdateCountsForWhatIfEvaluation() {
        PodInfo db = new PodInfo(onNode(withLabels(pod("db", null, null), Map.of("app", "db")), "a1"));
        NodeInfo a1 = NodeInfo.of(node("a1", "1", "1Gi", Map.of("zone", "a")), db);
        PodInfo incoming = new PodInfo(antiAffine(pod("p", null, null), "db"));
        List<NodeInfo> nodes = List.of(a1);
        framework.setSnapshot(Snapshot.of(nodes));
        CycleState state = new CycleState();
        plugin.preFilter(state, incoming, nodes);
        CycleState simulated = state.copy();
        NodeInfo without = a1.copy();
        without.removePod(db.uid());

        plugin.preFilterExtensions().removePod(simulated, incoming, db, without);

        assertThat(plugin.filter(simulated, incoming, without).isSuccess()).isTrue();
        assertThat(plugin.filter(state, incoming, a1).isSuccess()).isFalse();
    }
}
