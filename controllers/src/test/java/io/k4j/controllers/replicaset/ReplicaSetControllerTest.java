package io.k4j.controllers.replicaset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.ReplicationControllerBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatus;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.pods.OwnerReferences;
import io.k4j.controllerkit.testing.FakePodControl;
import io.k4j.controllerkit.testing.MutableClock;
import io.k4j.controllers.replication.ReplicationControllers;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ReplicaSetControllerTest {
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    private final MutableClock clock = new MutableClock(START);
    private final CacheImpl<ReplicaSet> replicaSetCache = new CacheImpl<>();
    private final CacheImpl<Pod> podCache = new CacheImpl<>();
    private final FakePodControl podControl = new FakePodControl();
    private final FakeStatusClient<ReplicaSet> statusClient = new FakeStatusClient<>(replicaSetCache, (object, status) -> new ReplicaSetBuilder(object).withStatus(status).build());
    private final ReplicaSetController<ReplicaSet> controller = new ReplicaSetController<>(
            ReplicaSets.INSTANCE, new Lister<>(replicaSetCache), new Lister<>(podCache), statusClient, podControl, clock);

    @Test
    void createsMissingPodsOnceWhileCreationsAreUnobserved() {
        ReplicaSet replicaSet = put(replicaSet("web", 3, 0));

        controller.sync("default/web");

        assertThat(podControl.created()).hasSize(3);
        assertThat(podControl.created()).allSatisfy(pod -> {
            assertThat(pod.getMetadata().getGenerateName()).isEqualTo("web-");
            assertThat(pod.getMetadata().getLabels()).containsEntry("app", "web");
            assertThat(OwnerReferences.isControlledBy(pod, replicaSet.getMetadata().getUid())).isTrue();
        });
        // The cache has not seen the pods yet: a second sync must not create them again.
        controller.sync("default/web");
        assertThat(podControl.created()).hasSize(3);

        for (Pod created : podControl.created()) {
            Pod pod = put(new PodBuilder(created).editMetadata().withCreationTimestamp(START.toString()).endMetadata().build());
            controller.addPod(pod);
        }
        assertThat(controller.expectations().satisfiedExpectations("default/web")).isTrue();
        controller.sync("default/web");
        assertThat(podControl.created()).hasSize(3);
        assertThat(statusClient.current("default/web").getReplicas()).isEqualTo(3);
    }

    @Test
    void slowStartStopsAtTheFirstFailingBatch() {
        put(replicaSet("web", 10, 0));
        podControl.limitCreates(2);

        assertThatThrownBy(() -> controller.sync("default/web")).isInstanceOf(KubernetesClientException.class);

        // Batches of 1 then 2: the second batch has one failure, so no batch of 4 is tried.
        assertThat(podControl.created()).hasSize(2);
        assertThat(controller.expectations().pending("default/web")[0]).isEqualTo(2);
        ReplicaSetStatus status = statusClient.current("default/web");
        assertThat(status.getConditions()).singleElement().satisfies(condition -> {
            assertThat(condition.getType()).isEqualTo("ReplicaFailure");
            assertThat(condition.getReason()).isEqualTo("FailedCreate");
            assertThat(condition.getMessage()).isEqualTo("fake create failure");
        });
    }

    @Test
    void successfulSyncRemovesTheReplicaFailureCondition() {
        put(replicaSet("web", 1, 0));
        podControl.failNext(1);
        assertThatThrownBy(() -> controller.sync("default/web")).isInstanceOf(KubernetesClientException.class);
        assertThat(statusClient.current("default/web").getConditions()).hasSize(1);

        controller.sync("default/web");

        assertThat(podControl.created()).hasSize(1);
        assertThat(statusClient.current("default/web").getConditions()).isNullOrEmpty();
    }

    @Test
    void deletesUnscheduledThenPendingThenNotReadyPodsFirst() {
        ReplicaSet replicaSet = put(replicaSet("web", 1, 0));
        put(pod("running-ready", replicaSet, "node-a", "Running", true, START.minusSeconds(600)));
        put(pod("unscheduled", replicaSet, null, "Pending", false, START.minusSeconds(600)));
        put(pod("pending", replicaSet, "node-a", "Pending", false, START.minusSeconds(600)));
        put(pod("running-not-ready", replicaSet, "node-a", "Running", false, START.minusSeconds(600)));

        controller.sync("default/web");

        assertThat(podControl.deleted()).containsExactlyInAnyOrder("default/unscheduled", "default/pending", "default/running-not-ready");
        // Deletions are awaited: another sync deletes nothing more.
        controller.sync("default/web");
        assertThat(podControl.deleted()).hasSize(3);
        for (String name : List.of("unscheduled", "pending", "running-not-ready")) {
            Pod gone = podCache.getByKey("default/" + name);
            podCache.remove(gone);
            controller.deletePod(gone);
        }
        assertThat(controller.expectations().satisfiedExpectations("default/web")).isTrue();
    }

    @Test
    void gracefulDeletionCountsOnceAgainstExpectations() {
        ReplicaSet replicaSet = put(replicaSet("web", 0, 0));
        Pod pod = put(pod("one", replicaSet, "node-a", "Running", true, START));
        controller.sync("default/web");
        assertThat(podControl.deleted()).containsExactly("default/one");

        Pod terminating = new PodBuilder(pod).editMetadata().withDeletionTimestamp(START.toString()).withResourceVersion("2").endMetadata().build();
        controller.updatePod(pod, terminating);
        controller.deletePod(terminating);

        assertThat(controller.expectations().pending("default/web")).containsExactly(0, 0);
    }

    @Test
    void adoptsMatchingOrphansAndReleasesPodsThatNoLongerMatch() {
        ReplicaSet replicaSet = put(replicaSet("web", 2, 0));
        Pod orphan = put(new PodBuilder(pod("orphan", null, "node-a", "Running", true, START)).build());
        Pod mismatched = put(new PodBuilder(pod("relabelled", replicaSet, "node-a", "Running", true, START))
                .editMetadata().withLabels(Map.of("app", "other")).endMetadata().build());
        Pod foreign = put(new PodBuilder(pod("foreign", null, "node-a", "Running", true, START))
                .editMetadata().withOwnerReferences(new OwnerReference("apps/v1", true, true, "ReplicaSet", "other", "other-uid")).endMetadata().build());

        controller.sync("default/web");

        assertThat(podControl.patches()).hasSize(2);
        assertThat(podControl.patches()).anySatisfy(patch -> assertThat(patch)
                .startsWith("default/orphan ")
                .contains("\"controller\":true", "\"uid\":\"" + replicaSet.getMetadata().getUid() + "\"", "\"kind\":\"ReplicaSet\""));
        assertThat(podControl.patches()).anySatisfy(patch -> assertThat(patch).startsWith("default/relabelled ").contains("\"$patch\":\"delete\""));
        // Two pods are claimed (orphan adopted) but the released and foreign ones are not: one more pod is created.
        assertThat(podControl.created()).hasSize(1);
        assertThat(foreign.getMetadata().getName()).isEqualTo("foreign");
        assertThat(orphan.getMetadata().getName()).isEqualTo("orphan");
        assertThat(mismatched.getMetadata().getName()).isEqualTo("relabelled");
    }

    @Test
    void writesStatusOnlyWhenItChanges() {
        ReplicaSet replicaSet = put(replicaSet("web", 2, 0));
        put(pod("a", replicaSet, "node-a", "Running", true, START));
        put(pod("b", replicaSet, "node-a", "Pending", false, START));

        controller.sync("default/web");
        controller.sync("default/web");

        assertThat(statusClient.updates()).isEqualTo(1);
        ReplicaSetStatus status = statusClient.current("default/web");
        assertThat(status.getReplicas()).isEqualTo(2);
        assertThat(status.getFullyLabeledReplicas()).isEqualTo(2);
        assertThat(status.getReadyReplicas()).isEqualTo(1);
        assertThat(status.getAvailableReplicas()).isEqualTo(1);
        assertThat(status.getObservedGeneration()).isEqualTo(1L);
    }

    @Test
    void countsAvailabilityAfterMinReadySeconds() {
        ReplicaSet replicaSet = put(replicaSet("web", 1, 10));
        put(pod("a", replicaSet, "node-a", "Running", true, START));

        controller.sync("default/web");
        assertThat(statusClient.current("default/web").getReadyReplicas()).isEqualTo(1);
        assertThat(statusClient.current("default/web").getAvailableReplicas()).isZero();

        clock.advance(Duration.ofSeconds(10));
        controller.sync("default/web");
        assertThat(statusClient.current("default/web").getAvailableReplicas()).isEqualTo(1);
    }

    @Test
    void runsReplicationControllersThroughTheSameEngine() {
        CacheImpl<ReplicationController> rcCache = new CacheImpl<>();
        FakeStatusClient<ReplicationController> rcStatus = new FakeStatusClient<>(rcCache,
                (object, status) -> new ReplicationControllerBuilder(object).withStatus(toRcStatus(status)).build());
        ReplicaSetController<ReplicationController> replicationManager = new ReplicaSetController<>(
                ReplicationControllers.INSTANCE, new Lister<>(rcCache), new Lister<>(podCache), rcStatus, podControl, clock);
        ReplicationController rc = new ReplicationControllerBuilder()
                .withNewMetadata().withName("legacy").withNamespace("default").withUid(UUID.randomUUID().toString()).withGeneration(1L).withResourceVersion("1").endMetadata()
                .withNewSpec().withReplicas(2).withSelector(Map.of("app", "legacy"))
                .withNewTemplate().withNewMetadata().withLabels(Map.of("app", "legacy")).endMetadata()
                .withNewSpec().addNewContainer().withName("c").withImage("nginx").endContainer().endSpec().endTemplate()
                .endSpec().build();
        rcCache.put(rc);

        replicationManager.sync("default/legacy");

        assertThat(podControl.created()).hasSize(2).allSatisfy(pod -> {
            OwnerReference owner = OwnerReferences.controllerOf(pod).orElseThrow();
            assertThat(owner.getKind()).isEqualTo("ReplicationController");
            assertThat(owner.getApiVersion()).isEqualTo("v1");
        });
        assertThat(rcCache.getByKey("default/legacy").getStatus().getObservedGeneration()).isEqualTo(1L);
    }

    @Test
    void orphanPodsWakeTheReplicaSetsThatSelectThem() {
        put(replicaSet("web", 1, 0));
        put(replicaSet("api", 1, 0));

        controller.addPod(pod("stray", null, null, "Pending", false, START));

        assertThat(controller.queue().length()).isEqualTo(1);
    }

    @Test
    void ownedPodEventsCountAsObservedCreations() {
        ReplicaSet replicaSet = put(replicaSet("web", 2, 0));
        controller.expectations().expectCreations("default/web", 2);

        controller.addPod(pod("a", replicaSet, null, "Pending", false, START));
        assertThat(controller.expectations().satisfiedExpectations("default/web")).isFalse();
        controller.addPod(pod("b", replicaSet, null, "Pending", false, START));

        assertThat(controller.expectations().satisfiedExpectations("default/web")).isTrue();
    }

    @Test
    void deletedReplicaSetsForgetTheirExpectations() {
        ReplicaSet replicaSet = put(replicaSet("web", 2, 0));
        controller.sync("default/web");
        replicaSetCache.remove(replicaSet);
        controller.deleteReplicaSet(replicaSet);

        assertThat(controller.expectations().pending("default/web")).containsExactly(0, 0);
        controller.sync("default/web");
        assertThat(podControl.created()).hasSize(2);
    }

    private static io.fabric8.kubernetes.api.model.ReplicationControllerStatus toRcStatus(ReplicaSetStatus status) {
        return new io.fabric8.kubernetes.api.model.ReplicationControllerStatusBuilder()
                .withReplicas(status.getReplicas())
                .withReadyReplicas(status.getReadyReplicas())
                .withAvailableReplicas(status.getAvailableReplicas())
                .withFullyLabeledReplicas(status.getFullyLabeledReplicas())
                .withObservedGeneration(status.getObservedGeneration())
                .build();
    }

    private ReplicaSet put(ReplicaSet replicaSet) {
        replicaSetCache.put(replicaSet);
        return replicaSet;
    }

    private Pod put(Pod pod) {
        podCache.put(pod);
        return pod;
    }

    static ReplicaSet replicaSet(String name, int replicas, int minReadySeconds) {
        return new ReplicaSetBuilder()
                .withNewMetadata().withName(name).withNamespace("default").withUid(UUID.randomUUID().toString()).withGeneration(1L).withResourceVersion("1").endMetadata()
                .withNewSpec().withReplicas(replicas).withMinReadySeconds(minReadySeconds)
                .withNewSelector().withMatchLabels(Map.of("app", name)).endSelector()
                .withNewTemplate().withNewMetadata().withLabels(Map.of("app", name)).endMetadata()
                .withNewSpec().addNewContainer().withName("c").withImage("nginx").endContainer().endSpec().endTemplate()
                .endSpec().build();
    }

    static Pod pod(String name, HasMetadata owner, String node, String phase, boolean ready, Instant created) {
        PodBuilder builder = new PodBuilder()
                .withNewMetadata().withName(name).withNamespace("default").withUid(name + "-uid").withResourceVersion("1")
                .withCreationTimestamp(created.toString()).withLabels(Map.of("app", owner == null ? "web" : owner.getMetadata().getName())).endMetadata()
                .withNewSpec().withNodeName(node).addNewContainer().withName("c").withImage("nginx").endContainer().endSpec()
                .withNewStatus().withPhase(phase)
                .addNewCondition().withType("Ready").withStatus(ready ? "True" : "False").withLastTransitionTime(created.toString()).endCondition()
                .endStatus();
        if (owner != null) {
            builder.editMetadata().withOwnerReferences(OwnerReferences.newControllerRef(owner, "apps/v1", "ReplicaSet")).endMetadata();
        }
        return builder.build();
    }

    /** Stores status writes in the cache, as the informer would see them. */
    static final class FakeStatusClient<T extends HasMetadata> implements ReplicaSetKind.ReplicaSetClient<T> {
        interface WithStatus<T> {
            T apply(T object, ReplicaSetStatus status);
        }

        private final CacheImpl<T> cache;
        private final WithStatus<T> withStatus;
        private final List<ReplicaSetStatus> written = new ArrayList<>();

        FakeStatusClient(CacheImpl<T> cache, WithStatus<T> withStatus) {
            this.cache = cache;
            this.withStatus = withStatus;
        }

        @Override
        public Optional<T> get(String namespace, String name) {
            return Optional.ofNullable(cache.getByKey(namespace + "/" + name));
        }

        @Override
        public synchronized T updateStatus(T object, ReplicaSetStatus status) {
            T updated = withStatus.apply(object, status);
            updated.getMetadata().setResourceVersion(Long.toString(Long.parseLong(object.getMetadata().getResourceVersion()) + 1));
            cache.put(updated);
            written.add(status);
            return updated;
        }

        synchronized int updates() {
            return written.size();
        }

        synchronized ReplicaSetStatus current(String key) {
            T object = cache.getByKey(key);
            return object instanceof ReplicaSet replicaSet ? replicaSet.getStatus() : written.get(written.size() - 1);
        }
    }
}
