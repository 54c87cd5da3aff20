package io.k4j.controllers.daemonset;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.testing.FakeEventRecorder;
import io.k4j.controllerkit.testing.FakePodControl;
import io.k4j.controllerkit.testing.MutableClock;
import io.k4j.controllers.history.ControllerHistory;
import io.k4j.controllers.history.InMemoryRevisionStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DaemonSetControllerTest {
    private static final String KEY = "kube-system/agent";

    private final CacheImpl<DaemonSet> daemonSetCache = new CacheImpl<>();
    private final CacheImpl<Pod> podCache = new CacheImpl<>();
    private final CacheImpl<Node> nodeCache = new CacheImpl<>();
    private final CacheImpl<ControllerRevision> revisionCache = new CacheImpl<>();
    private final FakePodControl podControl = new FakePodControl();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final List<DaemonSet> statusWrites = new ArrayList<>();
    private int observed;
    private int observedNames;
    private final DaemonSetController controller = new DaemonSetController(new Lister<>(daemonSetCache), new Lister<>(podCache), new Lister<>(nodeCache),
            new ControllerHistory(new InMemoryRevisionStore(revisionCache), new Lister<>(revisionCache)), podControl,
            daemonSet -> {
                statusWrites.add(daemonSet);
                daemonSetCache.put(new DaemonSetBuilder(daemonSet).build());
                return daemonSet;
            }, new FakeEventRecorder(), clock);

    @Test
    void eligibilityFollowsNodeSelectorAffinityAndTaints() {
        PodSpec spec = new PodSpecBuilder().withNodeSelector(Map.of("disk", "ssd")).addNewContainer().withName("agent").endContainer().build();
        assertThat(DaemonPods.eligibility(spec, node("a", Map.of("disk", "ssd")).build()).shouldRun()).isTrue();
        assertThat(DaemonPods.eligibility(spec, node("b", Map.of("disk", "hdd")).build())).isEqualTo(new DaemonPods.Eligibility(false, false));

        PodSpec plain = new PodSpecBuilder().addNewContainer().withName("agent").endContainer().build();
        // Daemon pods tolerate a not-ready, unreachable or cordoned node by themselves.
        assertThat(DaemonPods.eligibility(plain, tainted("c", taint("node.kubernetes.io/not-ready", "NoExecute"), taint("node.kubernetes.io/unschedulable", "NoSchedule"))).shouldRun())
                .isTrue();
        assertThat(DaemonPods.eligibility(plain, tainted("d", taint("dedicated", "NoSchedule")))).isEqualTo(new DaemonPods.Eligibility(false, true));
        assertThat(DaemonPods.eligibility(plain, tainted("e", taint("dedicated", "NoExecute")))).isEqualTo(new DaemonPods.Eligibility(false, false));
        // network-unavailable is only tolerated for host-network pods.
        Node noNetwork = tainted("f", taint("node.kubernetes.io/network-unavailable", "NoSchedule"));
        assertThat(DaemonPods.eligibility(plain, noNetwork).shouldRun()).isFalse();
        assertThat(DaemonPods.eligibility(new PodSpecBuilder(plain).withHostNetwork(true).build(), noNetwork).shouldRun()).isTrue();

        PodSpec affinity = new PodSpecBuilder(plain).withNewAffinity().withNewNodeAffinity().withNewRequiredDuringSchedulingIgnoredDuringExecution()
                .addNewNodeSelectorTerm().addNewMatchExpression().withKey("zone").withOperator("In").withValues("z1").endMatchExpression().endNodeSelectorTerm()
                .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().endAffinity().build();
        assertThat(DaemonPods.eligibility(affinity, node("g", Map.of("zone", "z1")).build()).shouldRun()).isTrue();
        assertThat(DaemonPods.eligibility(affinity, node("h", Map.of("zone", "z2")).build()).shouldRun()).isFalse();
    }

    @Test
    void createsOnePodPerEligibleNodePinnedByNodeAffinity() {
        nodeCache.put(node("node-1", Map.of()).build());
        nodeCache.put(node("node-2", Map.of()).build());
        nodeCache.put(tainted("control", taint("node-role.kubernetes.io/control-plane", "NoSchedule")));
        daemonSetCache.put(daemonSet("v1").build());

        controller.sync(KEY);

        assertThat(podControl.created()).hasSize(2);
        assertThat(podControl.created()).extracting(pod -> DaemonPods.targetNode(pod).orElseThrow()).containsExactlyInAnyOrder("node-1", "node-2");
        Pod pod = podControl.created().get(0);
        assertThat(pod.getSpec().getNodeName()).isNull();
        assertThat(pod.getSpec().getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms().get(0).getMatchFields().get(0).getKey())
                .isEqualTo("metadata.name");
        assertThat(pod.getSpec().getTolerations()).extracting(Toleration::getKey).contains("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable",
                "node.kubernetes.io/disk-pressure", "node.kubernetes.io/memory-pressure", "node.kubernetes.io/pid-pressure", "node.kubernetes.io/unschedulable");
        assertThat(pod.getMetadata().getLabels()).containsKey(ControllerHistory.CONTROLLER_REVISION_HASH_LABEL);
        assertThat(revisionCache.list()).singleElement().satisfies(revision -> assertThat(revision.getRevision()).isEqualTo(1L));
        DaemonSet stored = daemonSetCache.getByKey(KEY);
        assertThat(stored.getStatus().getDesiredNumberScheduled()).isEqualTo(2);
        assertThat(stored.getStatus().getObservedGeneration()).isEqualTo(1L);
    }

    @Test
    void rollingUpdateReplacesAtMostMaxUnavailablePodsAtATime() {
        for (int i = 1; i <= 3; i++) {
            nodeCache.put(node("node-" + i, Map.of()).build());
        }
        daemonSetCache.put(daemonSet("v1").build());
        controller.sync(KEY);
        observeCreatedPodsRunning();
        controller.sync(KEY);
        DaemonSet running = daemonSetCache.getByKey(KEY);
        assertThat(running.getStatus().getNumberAvailable()).isEqualTo(3);
        assertThat(running.getStatus().getUpdatedNumberScheduled()).isEqualTo(3);
        clearRecordedCalls();

        daemonSetCache.put(new DaemonSetBuilder(daemonSetCache.getByKey(KEY)).editMetadata().withGeneration(2L).endMetadata()
                .editSpec().editTemplate().editSpec().editFirstContainer().withImage("agent:v2").endContainer().endSpec().endTemplate().endSpec().build());
        controller.sync(KEY);

        assertThat(podControl.deleted()).hasSize(1);
        assertThat(podControl.created()).isEmpty();
        assertThat(revisionCache.list()).extracting(ControllerRevision::getRevision).containsExactlyInAnyOrder(1L, 2L);
        assertThat(daemonSetCache.getByKey(KEY).getStatus().getUpdatedNumberScheduled()).isZero();
    }

    @Test
    void rollingUpdateWithMaxSurgeStartsTheNewPodBeforeDeletingTheOld() {
        nodeCache.put(node("node-1", Map.of()).build());
        nodeCache.put(node("node-2", Map.of()).build());
        daemonSetCache.put(daemonSet("v1").editSpec().withNewUpdateStrategy().withType("RollingUpdate").withNewRollingUpdate()
                .withMaxSurge(new IntOrString(1)).withMaxUnavailable(new IntOrString(0)).endRollingUpdate().endUpdateStrategy().endSpec().build());
        controller.sync(KEY);
        observeCreatedPodsRunning();
        clearRecordedCalls();

        daemonSetCache.put(new DaemonSetBuilder(daemonSetCache.getByKey(KEY))
                .editSpec().editTemplate().editSpec().editFirstContainer().withImage("agent:v2").endContainer().endSpec().endTemplate().endSpec().build());
        controller.sync(KEY);

        assertThat(podControl.deleted()).isEmpty();
        assertThat(podControl.created()).hasSize(1);
        String surgeNode = DaemonPods.targetNode(podControl.created().get(0)).orElseThrow();
        observeCreatedPodsRunning();
        clearRecordedCalls();

        controller.sync(KEY);

        // The new pod on the surge node is available: its old pod goes, and the other node surges next.
        assertThat(podControl.deleted()).singleElement().satisfies(key -> assertThat(DaemonPods.targetNode(podCache.getByKey(key)).orElseThrow()).isEqualTo(surgeNode));
        assertThat(podControl.created()).hasSize(1);
    }

    @Test
    void onDeleteLeavesOldPodsAlone() {
        nodeCache.put(node("node-1", Map.of()).build());
        daemonSetCache.put(daemonSet("v1").editSpec().withNewUpdateStrategy().withType("OnDelete").endUpdateStrategy().endSpec().build());
        controller.sync(KEY);
        observeCreatedPodsRunning();
        clearRecordedCalls();

        daemonSetCache.put(new DaemonSetBuilder(daemonSetCache.getByKey(KEY))
                .editSpec().editTemplate().editSpec().editFirstContainer().withImage("agent:v2").endContainer().endSpec().endTemplate().endSpec().build());
        controller.sync(KEY);

        assertThat(podControl.deleted()).isEmpty();
        assertThat(podControl.created()).isEmpty();
    }

    @Test
    void deletesPodsFromNodesThatNoLongerQualify() {
        nodeCache.put(node("node-1", Map.of("role", "agent")).build());
        daemonSetCache.put(daemonSet("v1").editSpec().editTemplate().editSpec().withNodeSelector(Map.of("role", "agent")).endSpec().endTemplate().endSpec().build());
        controller.sync(KEY);
        observeCreatedPodsRunning();
        clearRecordedCalls();

        nodeCache.put(node("node-1", Map.of("role", "none")).build());
        controller.sync(KEY);

        assertThat(podControl.deleted()).hasSize(1);
        assertThat(daemonSetCache.getByKey(KEY).getStatus().getNumberMisscheduled()).isEqualTo(1);
    }

    /** What the pod informer would show: each pod created since the last call, bound to its node, Running and Ready. */
    private void observeCreatedPodsRunning() {
        List<Pod> created = podControl.created();
        for (Pod pod : created.subList(observed, created.size())) {
            // The fake names pods by its own counter, which restarts after clear(); keep cache names unique.
            String name = "agent-" + observedNames++;
            Pod running = new PodBuilder(pod).editMetadata().withName(name).withCreationTimestamp(clock.instant().toString()).endMetadata()
                    .editSpec().withNodeName(DaemonPods.targetNode(pod).orElseThrow()).endSpec()
                    .withNewStatus().withPhase("Running").addToConditions(new PodConditionBuilder().withType("Ready").withStatus("True")
                            .withLastTransitionTime(clock.instant().toString()).build()).endStatus().build();
            podCache.put(running);
            controller.podAdded(running);
        }
        observed = created.size();
    }

    private void clearRecordedCalls() {
        podControl.clear();
        observed = 0;
    }

    private static DaemonSetBuilder daemonSet(String version) {
        return new DaemonSetBuilder()
                .withNewMetadata().withName("agent").withNamespace("kube-system").withUid("ds-uid").withGeneration(1L).endMetadata()
                .withNewSpec()
                .withNewSelector().withMatchLabels(Map.of("app", "agent")).endSelector()
                .withNewTemplate().withNewMetadata().withLabels(Map.of("app", "agent")).endMetadata()
                .withNewSpec().addNewContainer().withName("agent").withImage("agent:" + version).endContainer().endSpec()
                .endTemplate()
                .endSpec();
    }

    private static NodeBuilder node(String name, Map<String, String> labels) {
        return new NodeBuilder().withNewMetadata().withName(name).withLabels(labels).endMetadata().withNewSpec().endSpec();
    }

    private static Node tainted(String name, Taint... taints) {
        return node(name, Map.of()).editSpec().withTaints(taints).endSpec().build();
    }

    private static Taint taint(String key, String effect) {
        return new TaintBuilder().withKey(key).withEffect(effect).build();
    }
}
