package io.k4j.controllers.garbagecollector;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.k4j.controllerkit.workqueue.WorkQueue;
import io.k4j.controllers.dynamic.ApiResource;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class GarbageCollectorTest {
    private static final ApiResource REPLICA_SETS = new ApiResource("apps", "v1", "ReplicaSet", "replicasets", true, List.of("list", "watch", "delete"));
    private static final ApiResource PODS = new ApiResource("", "v1", "Pod", "pods", true, List.of("list", "watch", "delete"));
    private static final ApiResource NODES = new ApiResource("", "v1", "Node", "nodes", false, List.of("list", "watch", "delete"));
    private static final ResourceKinds KINDS = new ResourceKinds(List.of(REPLICA_SETS, PODS, NODES));

    private final WorkQueue<ObjectIdentity> attemptToDelete = WorkQueue.withDefaultRateLimiter("test-attempt-to-delete");
    private final WorkQueue<ObjectIdentity> attemptToOrphan = WorkQueue.withDefaultRateLimiter("test-attempt-to-orphan");
    private final DependencyGraph graph = new DependencyGraph(attemptToDelete, attemptToOrphan, GarbageCollectorTest::virtualIdentity);
    private final FakeObjectClient api = new FakeObjectClient();
    private final GarbageCollector collector = new GarbageCollector(graph, api, () -> KINDS, attemptToDelete);

    GarbageCollectorTest() {
        api.attach(graph);
    }

    @AfterEach
    void shutDown() {
        attemptToDelete.shutDown();
        attemptToOrphan.shutDown();
    }

    @Test
    void deletingAnOwnerDeletesItsDependentsInTheBackground() throws Exception {
        api.add(REPLICA_SETS, replicaSet("web", "rs-1"));
        api.add(PODS, pod("web-a", "pod-a", owner("web", "rs-1", true)));
        api.add(PODS, pod("web-b", "pod-b", owner("web", "rs-1", false)));
        api.add(PODS, pod("other", "pod-c"));
        drain();
        assertThat(api.deletes()).isEmpty();

        api.remove(REPLICA_SETS, "default", "web");
        drain();

        assertThat(api.deletes()).containsExactlyInAnyOrder("Pod pods/default/web-a Background", "Pod pods/default/web-b Background");
        assertThat(api.exists(PODS, "default", "other")).isTrue();
        assertThat(graph.view("rs-1")).isEmpty();
    }

    @Test
    void foregroundDeletionDeletesDependentsFirstAndThenReleasesTheOwner() throws Exception {
        api.add(REPLICA_SETS, replicaSet("web", "rs-1"));
        // A pod with a finalizer of its own blocks the owner until it is really gone.
        api.add(PODS, new ObjectMetaBuilder(pod("web-a", "pod-a", owner("web", "rs-1", true))).withFinalizers("example.com/hold").build());
        api.add(PODS, pod("web-b", "pod-b", owner("web", "rs-1", false)));
        drain();

        api.add(REPLICA_SETS, new ObjectMetaBuilder(replicaSet("web", "rs-1"))
                .withDeletionTimestamp("2026-01-01T00:00:00Z").withFinalizers(ObservedObject.FOREGROUND_FINALIZER).build());
        drain();

        assertThat(api.deletes()).containsExactlyInAnyOrder("Pod pods/default/web-a Background", "Pod pods/default/web-b Background");
        assertThat(api.exists(PODS, "default", "web-b")).isFalse();
        assertThat(api.exists(PODS, "default", "web-a")).isTrue();
        assertThat(api.exists(REPLICA_SETS, "default", "web")).as("waits for the blocking pod").isTrue();
        assertThat(api.patches()).noneMatch(patch -> patch.startsWith("ReplicaSet"));

        ObjectMeta held = api.get(PODS, "default", "web-a").orElseThrow();
        api.setFinalizers(PODS, held, List.of());
        drain();

        assertThat(api.patches()).contains("ReplicaSet replicasets/default/web finalizers=[]");
        assertThat(api.exists(REPLICA_SETS, "default", "web")).isFalse();
    }

    @Test
    void aDependentThatDropsItsBlockingReferenceReleasesAForegroundOwner() throws Exception {
        api.add(REPLICA_SETS, replicaSet("web", "rs-1"));
        api.add(PODS, new ObjectMetaBuilder(pod("web-a", "pod-a", owner("web", "rs-1", true))).withFinalizers("example.com/hold").build());
        api.add(REPLICA_SETS, new ObjectMetaBuilder(replicaSet("web", "rs-1"))
                .withDeletionTimestamp("2026-01-01T00:00:00Z").withFinalizers(ObservedObject.FOREGROUND_FINALIZER).build());
        drain();
        assertThat(api.exists(REPLICA_SETS, "default", "web")).isTrue();

        // Someone else takes the pod over: it no longer blocks the owner's deletion.
        api.setOwnerReferences(PODS, api.get(PODS, "default", "web-a").orElseThrow(), List.of(owner("web", "rs-1", false)));
        drain();

        assertThat(api.exists(REPLICA_SETS, "default", "web")).isFalse();
        assertThat(api.exists(PODS, "default", "web-a")).as("held by its own finalizer").isTrue();
    }

    @Test
    void orphaningRemovesTheOwnerReferenceFromEveryDependentThenTheFinalizer() throws Exception {
        OwnerReference other = new OwnerReferenceBuilder(owner("keeper", "rs-2", false)).build();
        api.add(REPLICA_SETS, replicaSet("keeper", "rs-2"));
        api.add(REPLICA_SETS, replicaSet("web", "rs-1"));
        api.add(PODS, pod("web-a", "pod-a", owner("web", "rs-1", true)));
        api.add(PODS, pod("web-b", "pod-b", owner("web", "rs-1", true), other));
        drain();

        api.add(REPLICA_SETS, new ObjectMetaBuilder(replicaSet("web", "rs-1"))
                .withDeletionTimestamp("2026-01-01T00:00:00Z").withFinalizers(ObservedObject.ORPHAN_FINALIZER).build());
        drain();

        assertThat(api.deletes()).isEmpty();
        assertThat(api.patches()).containsExactly(
                "Pod pods/default/web-a ownerReferences=[]",
                "Pod pods/default/web-b ownerReferences=[keeper]",
                "ReplicaSet replicasets/default/web finalizers=[]");
        assertThat(api.get(PODS, "default", "web-a").orElseThrow().getOwnerReferences()).isEmpty();
        assertThat(api.exists(REPLICA_SETS, "default", "web")).isFalse();
    }

    @Test
    void aReferenceWhoseUidDoesNotMatchNeverTiesTheDependentToTheNewOwner() throws Exception {
        // web was deleted and created again: the pod still names the old incarnation.
        api.add(REPLICA_SETS, replicaSet("web", "rs-new"));
        api.add(PODS, pod("web-a", "pod-a", owner("web", "rs-old", true)));
        api.add(PODS, pod("web-b", "pod-b", owner("web", "rs-new", true)));
        // Orphaning the new owner leaves the old owner's pod alone.
        api.add(REPLICA_SETS, new ObjectMetaBuilder(replicaSet("web", "rs-new"))
                .withDeletionTimestamp("2026-01-01T00:00:00Z").withFinalizers(ObservedObject.ORPHAN_FINALIZER).build());
        drainOrphans();
        assertThat(api.patches()).containsExactly(
                "Pod pods/default/web-b ownerReferences=[]",
                "ReplicaSet replicasets/default/web finalizers=[]");

        // The pod of the old owner is garbage: its owner is gone, whatever now has that name.
        drain();
        assertThat(api.deletes()).containsExactly("Pod pods/default/web-a Background");
        assertThat(api.exists(PODS, "default", "web-b")).isTrue();
    }

    @Test
    void aDependentWithALiveOwnerOnlyLosesTheReferencesToGoneOwners() throws Exception {
        api.add(REPLICA_SETS, replicaSet("keeper", "rs-2"));
        api.add(PODS, pod("web-a", "pod-a", owner("gone", "rs-gone", true), owner("keeper", "rs-2", false)));
        drain();

        assertThat(api.deletes()).isEmpty();
        assertThat(api.patches()).containsExactly("Pod pods/default/web-a ownerReferences=[keeper]");
    }

    @Test
    void anAbsentOwnerNeverObservedIsVerifiedWithTheApiAndItsDependentsDeleted() throws Exception {
        api.add(PODS, pod("web-a", "pod-a", owner("never", "rs-never", true)));
        assertThat(graph.view("rs-never")).hasValueSatisfying(node -> assertThat(node.virtual()).isTrue());
        drain();

        assertThat(api.deletes()).containsExactly("Pod pods/default/web-a Background");
        assertThat(graph.view("rs-never")).isEmpty();
    }

    @Test
    void anOwnerTheInformersHaveNotDeliveredYetIsCheckedLiveAndKeepsItsDependents() throws Exception {
        api.addUnobserved(REPLICA_SETS, replicaSet("web", "rs-1"));
        api.add(PODS, pod("web-a", "pod-a", owner("web", "rs-1", true)));
        drain();

        assertThat(api.deletes()).isEmpty();
        assertThat(graph.view("rs-1")).hasValueSatisfying(node -> assertThat(node.virtual()).isTrue());
    }

    @Test
    void aClusterScopedOwnerOfNamespacedDependentsIsLookedUpWithoutANamespace() throws Exception {
        OwnerReference node = new OwnerReferenceBuilder().withApiVersion("v1").withKind("Node").withName("node-1").withUid("node-uid").build();
        api.add(NODES, new ObjectMetaBuilder().withName("node-1").withUid("node-uid").build());
        api.add(PODS, pod("web-a", "pod-a", node));
        drain();
        assertThat(graph.view("node-uid")).hasValueSatisfying(view -> assertThat(view.identity().namespace()).isEmpty());
        assertThat(api.deletes()).isEmpty();

        api.remove(NODES, "", "node-1");
        drain();
        assertThat(api.deletes()).containsExactly("Pod pods/default/web-a Background");
    }

    @Test
    void aDependentWithDependentsOfItsOwnIsDeletedInTheForegroundWhenItsOwnerIs() throws Exception {
        ApiResource deployments = new ApiResource("apps", "v1", "Deployment", "deployments", true, List.of("list", "watch", "delete"));
        GarbageCollector withDeployments = new GarbageCollector(graph, api, () -> new ResourceKinds(List.of(REPLICA_SETS, PODS, deployments)), attemptToDelete);
        api.add(deployments, new ObjectMetaBuilder().withNamespace("default").withName("web").withUid("deploy-1").build());
        api.add(REPLICA_SETS, pod("web-1", "rs-1", new OwnerReferenceBuilder().withApiVersion("apps/v1").withKind("Deployment").withName("web")
                .withUid("deploy-1").withBlockOwnerDeletion(true).withController(true).build()));
        api.add(PODS, pod("web-1-a", "pod-a", new OwnerReferenceBuilder(owner("web-1", "rs-1", true)).build()));
        api.add(deployments, new ObjectMetaBuilder().withNamespace("default").withName("web").withUid("deploy-1")
                .withDeletionTimestamp("2026-01-01T00:00:00Z").withFinalizers(ObservedObject.FOREGROUND_FINALIZER).build());
        drain(withDeployments);

        assertThat(api.deletes()).containsExactly(
                "ReplicaSet replicasets/default/web-1 Foreground",
                "Pod pods/default/web-1-a Background");
        assertThat(api.exists(REPLICA_SETS, "default", "web-1")).isFalse();
        assertThat(api.exists(deployments, "default", "web")).isFalse();
    }

    private void drain() throws Exception {
        drain(collector);
    }

    /** Runs both queues until neither has work; an exception from a key fails the test. */
    private void drain(GarbageCollector gc) throws Exception {
        boolean worked = true;
        while (worked) {
            worked = false;
            while (attemptToOrphan.length() > 0) {
                ObjectIdentity key = attemptToOrphan.get().orElseThrow();
                try {
                    gc.attemptToOrphan(key);
                } finally {
                    attemptToOrphan.done(key);
                }
                worked = true;
            }
            while (attemptToDelete.length() > 0) {
                ObjectIdentity key = attemptToDelete.get().orElseThrow();
                try {
                    gc.attemptToDelete(key);
                } finally {
                    attemptToDelete.done(key);
                }
                worked = true;
            }
        }
    }

    private void drainOrphans() throws Exception {
        while (attemptToOrphan.length() > 0) {
            ObjectIdentity key = attemptToOrphan.get().orElseThrow();
            try {
                collector.attemptToOrphan(key);
            } finally {
                attemptToOrphan.done(key);
            }
        }
    }

    private static ObjectMeta replicaSet(String name, String uid) {
        return new ObjectMetaBuilder().withNamespace("default").withName(name).withUid(uid).build();
    }

    private static ObjectMeta pod(String name, String uid, OwnerReference... owners) {
        return new ObjectMetaBuilder().withNamespace("default").withName(name).withUid(uid).withOwnerReferences(owners).build();
    }

    private static OwnerReference owner(String name, String uid, boolean blockOwnerDeletion) {
        return new OwnerReferenceBuilder().withApiVersion("apps/v1").withKind("ReplicaSet").withName(name).withUid(uid)
                .withController(true).withBlockOwnerDeletion(blockOwnerDeletion).build();
    }

    private static ObjectIdentity virtualIdentity(ObjectIdentity implied) {
        Optional<ApiResource> resource = KINDS.resolve(implied.apiVersion(), implied.kind());
        if (resource.isPresent() && !resource.get().namespaced()) {
            return new ObjectIdentity(implied.apiVersion(), implied.kind(), "", implied.name(), implied.uid());
        }
        return implied;
    }
}
