package io.k4j.controllers.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.pods.OwnerReferences;
import io.k4j.controllerkit.testing.FakeEventRecorder;
import io.k4j.controllerkit.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class DeploymentControllerTest {
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    private final MutableClock clock = new MutableClock(START);
    private final CacheImpl<Deployment> deploymentCache = new CacheImpl<>();
    private final CacheImpl<ReplicaSet> replicaSetCache = new CacheImpl<>();
    private final CacheImpl<Pod> podCache = new CacheImpl<>();
    private final FakeDeploymentClient client = new FakeDeploymentClient(deploymentCache, replicaSetCache, clock);
    private final FakeEventRecorder events = new FakeEventRecorder();
    private final DeploymentController controller = new DeploymentController(
            new Lister<>(deploymentCache), new Lister<>(replicaSetCache), new Lister<>(podCache), client, events, clock);

    @Test
    void createsTheFirstReplicaSetWithHashNameAndRevision() {
        deploymentCache.put(deployment("web", 3, "nginx"));

        controller.sync("default/web");

        ReplicaSet replicaSet = single(replicaSets());
        String hash = replicaSet.getMetadata().getLabels().get("pod-template-hash");
        assertThat(replicaSet.getMetadata().getName()).isEqualTo("web-" + hash);
        assertThat(replicaSet.getSpec().getReplicas()).isEqualTo(3);
        assertThat(replicaSet.getSpec().getSelector().getMatchLabels()).containsEntry("app", "web").containsEntry("pod-template-hash", hash);
        assertThat(replicaSet.getSpec().getTemplate().getMetadata().getLabels()).containsEntry("pod-template-hash", hash);
        assertThat(replicaSet.getMetadata().getAnnotations())
                .containsEntry("deployment.kubernetes.io/revision", "1")
                .containsEntry("deployment.kubernetes.io/desired-replicas", "3")
                .containsEntry("deployment.kubernetes.io/max-replicas", "4");
        assertThat(OwnerReferences.isControlledBy(replicaSet, stored("web").getMetadata().getUid())).isTrue();
        assertThat(events.events()).contains("Normal ScalingReplicaSet Scaled up replica set " + replicaSet.getMetadata().getName() + " to 3");

        Deployment deployment = stored("web");
        assertThat(deployment.getMetadata().getAnnotations()).containsEntry("deployment.kubernetes.io/revision", "1");
        assertThat(condition(deployment, "Progressing").getReason()).isEqualTo("NewReplicaSetCreated");
        assertThat(condition(deployment, "Available").getReason()).isEqualTo("MinimumReplicasUnavailable");
        assertThat(deployment.getStatus().getObservedGeneration()).isEqualTo(1L);
    }

    @Test
    void completesWhenTheNewReplicaSetIsAvailable() {
        deploymentCache.put(deployment("web", 3, "nginx"));
        controller.sync("default/web");
        markAvailable(single(replicaSets()));

        controller.sync("default/web");

        Deployment deployment = stored("web");
        assertThat(deployment.getStatus().getReplicas()).isEqualTo(3);
        assertThat(deployment.getStatus().getUpdatedReplicas()).isEqualTo(3);
        assertThat(deployment.getStatus().getReadyReplicas()).isEqualTo(3);
        assertThat(deployment.getStatus().getAvailableReplicas()).isEqualTo(3);
        assertThat(deployment.getStatus().getUnavailableReplicas()).isZero();
        assertThat(condition(deployment, "Progressing").getReason()).isEqualTo("NewReplicaSetAvailable");
        assertThat(condition(deployment, "Progressing").getMessage()).isEqualTo("ReplicaSet \"" + single(replicaSets()).getMetadata().getName() + "\" has successfully progressed.");
        assertThat(condition(deployment, "Available").getReason()).isEqualTo("MinimumReplicasAvailable");
    }

    @Test
    void rollsOutWithinSurgeAndUnavailability() {
        deploymentCache.put(deployment("web", 4, "nginx:1"));
        controller.sync("default/web");
        ReplicaSet old = markAvailable(single(replicaSets()));
        controller.sync("default/web");

        deploymentCache.put(newTemplate(stored("web"), "nginx:2"));
        controller.sync("default/web");

        ReplicaSet created = newest();
        assertThat(created.getMetadata().getName()).isNotEqualTo(old.getMetadata().getName());
        // 25% of 4: surge 1, so one new pod on top of four old ones.
        assertThat(created.getSpec().getReplicas()).isEqualTo(1);
        assertThat(created.getMetadata().getAnnotations()).containsEntry("deployment.kubernetes.io/revision", "2");
        assertThat(condition(stored("web"), "Progressing").getReason()).isEqualTo("NewReplicaSetCreated");

        controller.sync("default/web");
        // The new pod is not available yet: one old replica may go (4 + 1 - 3 minimum available - 1 unavailable new).
        assertThat(replicaSet(old.getMetadata().getName()).getSpec().getReplicas()).isEqualTo(3);
        assertThat(events.events()).contains("Normal ScalingReplicaSet Scaled down replica set " + old.getMetadata().getName() + " to 3 from 4");

        markAvailable(replicaSet(old.getMetadata().getName()));
        markAvailable(replicaSet(created.getMetadata().getName()));
        controller.sync("default/web");
        assertThat(replicaSet(created.getMetadata().getName()).getSpec().getReplicas()).isEqualTo(2);
        assertThat(condition(stored("web"), "Progressing").getReason()).isEqualTo("ReplicaSetUpdated");

        for (int step = 0; step < 10; step++) {
            markAvailable(replicaSet(old.getMetadata().getName()));
            markAvailable(replicaSet(created.getMetadata().getName()));
            controller.sync("default/web");
        }
        assertThat(replicaSet(created.getMetadata().getName()).getSpec().getReplicas()).isEqualTo(4);
        assertThat(replicaSet(old.getMetadata().getName()).getSpec().getReplicas()).isZero();
        assertThat(condition(stored("web"), "Progressing").getReason()).isEqualTo("NewReplicaSetAvailable");
    }

    @Test
    void recreateScalesOldDownBeforeCreatingTheNewReplicaSet() {
        deploymentCache.put(recreate(deployment("web", 3, "nginx:1")));
        controller.sync("default/web");
        ReplicaSet old = markAvailable(single(replicaSets()));
        controller.sync("default/web");

        deploymentCache.put(newTemplate(stored("web"), "nginx:2"));
        controller.sync("default/web");

        assertThat(replicaSets()).hasSize(1);
        assertThat(replicaSet(old.getMetadata().getName()).getSpec().getReplicas()).isZero();

        // The old replica set still reports pods: no new one yet.
        controller.sync("default/web");
        assertThat(replicaSets()).hasSize(1);

        markAvailable(replicaSet(old.getMetadata().getName()));
        controller.sync("default/web");
        assertThat(replicaSets()).hasSize(2);
        assertThat(newest().getSpec().getReplicas()).isEqualTo(3);
    }

    @Test
    void rollbackToAnOldTemplateReusesItsReplicaSetWithANewRevision() {
        deploymentCache.put(deployment("web", 2, "nginx:1"));
        controller.sync("default/web");
        ReplicaSet first = markAvailable(single(replicaSets()));
        controller.sync("default/web");
        deploymentCache.put(newTemplate(stored("web"), "nginx:2"));
        rollOut();

        // kubectl rollout undo patches the deployment's template back to revision 1's.
        deploymentCache.put(newTemplate(stored("web"), "nginx:1"));
        rollOut();

        ReplicaSet reused = replicaSet(first.getMetadata().getName());
        assertThat(replicaSets()).hasSize(2);
        assertThat(reused.getSpec().getReplicas()).isEqualTo(2);
        assertThat(reused.getMetadata().getAnnotations())
                .containsEntry("deployment.kubernetes.io/revision", "3")
                .containsEntry("deployment.kubernetes.io/revision-history", "1");
        assertThat(stored("web").getMetadata().getAnnotations()).containsEntry("deployment.kubernetes.io/revision", "3");
    }

    @Test
    void cleansUpOldReplicaSetsBeyondTheHistoryLimit() {
        Deployment deployment = deployment("web", 1, "v1");
        deployment.getSpec().setRevisionHistoryLimit(1);
        deploymentCache.put(deployment);
        rollOut();
        for (String image : List.of("v2", "v3", "v4")) {
            deploymentCache.put(newTemplate(stored("web"), image));
            rollOut();
        }

        List<ReplicaSet> remaining = replicaSets();
        assertThat(remaining).hasSize(2);
        assertThat(remaining).extracting(replicaSet -> replicaSet.getMetadata().getAnnotations().get("deployment.kubernetes.io/revision"))
                .containsExactlyInAnyOrder("3", "4");
    }

    @Test
    void pausedDeploymentsScaleButDoNotRollOut() {
        deploymentCache.put(deployment("web", 2, "nginx:1"));
        rollOut();
        Deployment paused = newTemplate(stored("web"), "nginx:2");
        paused.getSpec().setPaused(true);
        paused.getSpec().setReplicas(5);
        deploymentCache.put(paused);

        controller.sync("default/web");

        assertThat(replicaSets()).hasSize(1);
        assertThat(single(replicaSets()).getSpec().getReplicas()).isEqualTo(5);
        assertThat(condition(stored("web"), "Progressing").getReason()).isEqualTo("DeploymentPaused");

        Deployment resumed = new DeploymentBuilder(stored("web")).build();
        resumed.getSpec().setPaused(false);
        deploymentCache.put(resumed);
        controller.sync("default/web");
        assertThat(replicaSets()).hasSize(2);
    }

    @Test
    void scalesProportionallyDuringARollout() {
        Deployment deployment = deployment("web", 10, "nginx:1");
        deployment.getSpec().getStrategy().getRollingUpdate().setMaxSurge(new IntOrString(3));
        deployment.getSpec().getStrategy().getRollingUpdate().setMaxUnavailable(new IntOrString(2));
        deploymentCache.put(deployment);
        ReplicaSet old = ownedReplicaSet(stored("web"), "web-old", 8, "nginx:1", "1", START.minusSeconds(60));
        ReplicaSet current = ownedReplicaSet(stored("web"), "web-new", 5, "nginx:2", "2", START);
        replicaSetCache.put(old);
        replicaSetCache.put(current);
        Deployment resized = newTemplate(stored("web"), "nginx:2");
        resized.getSpec().setReplicas(15);
        resized.setStatus(new io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder().withReplicas(13).build());
        deploymentCache.put(resized);

        controller.sync("default/web");

        // 18 allowed (15 + surge 3), 13 now: +5 shared by size, 8*18/13 -> 11 and 5*18/13 -> 7.
        assertThat(replicaSet("web-old").getSpec().getReplicas()).isEqualTo(11);
        assertThat(replicaSet("web-new").getSpec().getReplicas()).isEqualTo(7);
        assertThat(replicaSet("web-new").getMetadata().getAnnotations()).containsEntry("deployment.kubernetes.io/desired-replicas", "15");
    }

    @Test
    void reportsProgressDeadlineExceededWithoutProgress() {
        Deployment deployment = deployment("web", 2, "nginx");
        deployment.getSpec().setProgressDeadlineSeconds(60);
        deploymentCache.put(deployment);
        controller.sync("default/web");
        controller.sync("default/web");
        assertThat(condition(stored("web"), "Progressing").getStatus()).isEqualTo("True");

        clock.advance(Duration.ofSeconds(61));
        controller.sync("default/web");

        DeploymentCondition progressing = condition(stored("web"), "Progressing");
        assertThat(progressing.getStatus()).isEqualTo("False");
        assertThat(progressing.getReason()).isEqualTo("ProgressDeadlineExceeded");
        assertThat(progressing.getMessage()).isEqualTo("ReplicaSet \"" + single(replicaSets()).getMetadata().getName() + "\" has timed out progressing.");
    }

    @Test
    void reportsAFailedReplicaSetCreate() {
        deploymentCache.put(deployment("web", 1, "nginx"));
        client.failCreates(1);

        assertThatThrownBy(() -> controller.sync("default/web")).isInstanceOf(KubernetesClientException.class);

        DeploymentCondition progressing = condition(stored("web"), "Progressing");
        assertThat(progressing.getStatus()).isEqualTo("False");
        assertThat(progressing.getReason()).isEqualTo("ReplicaSetCreateError");
        assertThat(events.events()).anyMatch(event -> event.startsWith("Warning ReplicaSetCreateError Failed to create new replica set \"web-"));
    }

    @Test
    void adoptsOrphanedReplicaSetsThatMatchItsSelector() {
        deploymentCache.put(deployment("web", 1, "nginx"));
        ReplicaSet orphan = ownedReplicaSet(stored("web"), "web-orphan", 1, "nginx", "1", START);
        orphan.getMetadata().setOwnerReferences(List.of());
        replicaSetCache.put(orphan);

        controller.sync("default/web");

        assertThat(client.calls()).anyMatch(call -> call.startsWith("patch web-orphan ") && call.contains("\"controller\":true") && call.contains("\"kind\":\"Deployment\""));
        // Adopted and matching the template: no second replica set.
        assertThat(replicaSets()).hasSize(1);
    }

    @Test
    void recreateDeploymentsSyncWhenTheirLastPodIsGone() {
        deploymentCache.put(recreate(deployment("web", 1, "nginx")));
        controller.sync("default/web");
        ReplicaSet replicaSet = single(replicaSets());
        Pod first = ownedPod("a", replicaSet);
        Pod second = ownedPod("b", replicaSet);
        podCache.put(first);
        podCache.put(second);

        podCache.remove(first);
        controller.deletePod(first);
        assertThat(controller.queue().length()).isZero();

        podCache.remove(second);
        controller.deletePod(second);
        assertThat(controller.queue().length()).isEqualTo(1);
    }

    @Test
    void requeuesAStuckDeploymentWhenItsDeadlinePasses() {
        Deployment deployment = deployment("web", 2, "nginx");
        deployment.getSpec().setProgressDeadlineSeconds(60);
        deploymentCache.put(deployment);
        controller.sync("default/web");
        Deployment stored = stored("web");

        clock.advance(Duration.ofSeconds(20));
        Duration delay = controller.requeueStuckDeployment(stored, stored.getStatus(), clock.instant());

        assertThat(delay).isEqualTo(Duration.ofSeconds(40));
        markAvailable(single(replicaSets()));
        controller.sync("default/web");
        Deployment complete = stored("web");
        assertThat(controller.requeueStuckDeployment(complete, complete.getStatus(), clock.instant())).isNull();
    }

    private static Pod ownedPod(String name, ReplicaSet owner) {
        return new io.fabric8.kubernetes.api.model.PodBuilder()
                .withNewMetadata().withName(name).withNamespace("default").withUid(name)
                .withLabels(owner.getSpec().getTemplate().getMetadata().getLabels())
                .withOwnerReferences(OwnerReferences.newControllerRef(owner, "apps/v1", "ReplicaSet")).endMetadata()
                .withNewStatus().withPhase("Running").endStatus()
                .build();
    }

    // Helpers.

    private void rollOut() {
        for (int step = 0; step < 10; step++) {
            controller.sync("default/web");
            replicaSets().forEach(this::markAvailable);
        }
        controller.sync("default/web");
    }

    private ReplicaSet markAvailable(ReplicaSet replicaSet) {
        int replicas = replicaSet.getSpec().getReplicas();
        ReplicaSet updated = new ReplicaSetBuilder(replicaSet)
                .withNewStatus().withReplicas(replicas).withReadyReplicas(replicas).withAvailableReplicas(replicas).withFullyLabeledReplicas(replicas)
                .withObservedGeneration(replicaSet.getMetadata().getGeneration()).endStatus()
                .build();
        replicaSetCache.put(updated);
        return updated;
    }

    private List<ReplicaSet> replicaSets() {
        return replicaSetCache.list();
    }

    private ReplicaSet replicaSet(String name) {
        return replicaSetCache.getByKey("default/" + name);
    }

    private ReplicaSet newest() {
        return replicaSets().stream().max(Comparator.comparing(replicaSet ->
                Long.parseLong(replicaSet.getMetadata().getAnnotations().getOrDefault("deployment.kubernetes.io/revision", "0")))).orElseThrow();
    }

    private Deployment stored(String name) {
        return deploymentCache.getByKey("default/" + name);
    }

    private static ReplicaSet single(List<ReplicaSet> replicaSets) {
        assertThat(replicaSets).hasSize(1);
        return replicaSets.get(0);
    }

    private static DeploymentCondition condition(Deployment deployment, String type) {
        return DeploymentUtil.condition(deployment.getStatus(), type).orElseThrow(() -> new AssertionError("no " + type + " condition in " + deployment.getStatus()));
    }

    private static Deployment newTemplate(Deployment deployment, String image) {
        Deployment changed = new DeploymentBuilder(deployment).build();
        changed.getSpec().getTemplate().getSpec().getContainers().get(0).setImage(image);
        changed.getMetadata().setGeneration(changed.getMetadata().getGeneration() + 1);
        return changed;
    }

    private static Deployment recreate(Deployment deployment) {
        deployment.getSpec().getStrategy().setType("Recreate");
        deployment.getSpec().getStrategy().setRollingUpdate(null);
        return deployment;
    }

    private static ReplicaSet ownedReplicaSet(Deployment owner, String name, int replicas, String image, String revision, Instant created) {
        Map<String, String> labels = new HashMap<>(Map.of("app", owner.getMetadata().getName(), "pod-template-hash", name));
        ReplicaSet replicaSet = new ReplicaSetBuilder()
                .withNewMetadata().withName(name).withNamespace("default").withUid(UUID.randomUUID().toString()).withResourceVersion("1").withGeneration(1L)
                .withCreationTimestamp(created.toString()).withLabels(labels)
                .withAnnotations(Map.of("deployment.kubernetes.io/revision", revision, "deployment.kubernetes.io/desired-replicas", "10",
                        "deployment.kubernetes.io/max-replicas", "13"))
                .withOwnerReferences(OwnerReferences.newControllerRef(owner, "apps/v1", "Deployment"))
                .endMetadata()
                .withNewSpec().withReplicas(replicas).withNewSelector().withMatchLabels(labels).endSelector()
                .withNewTemplate().withNewMetadata().withLabels(labels).endMetadata()
                .withNewSpec().addNewContainer().withName("web").withImage(image).endContainer().endSpec().endTemplate()
                .endSpec()
                .withNewStatus().withReplicas(replicas).withAvailableReplicas(replicas).withReadyReplicas(replicas).withObservedGeneration(1L).endStatus()
                .build();
        return replicaSet;
    }

    static Deployment deployment(String name, int replicas, String image) {
        return new DeploymentBuilder()
                .withNewMetadata().withName(name).withNamespace("default").withUid(UUID.randomUUID().toString()).withGeneration(1L).withResourceVersion("1").endMetadata()
                .withNewSpec().withReplicas(replicas).withRevisionHistoryLimit(10).withProgressDeadlineSeconds(600)
                .withNewStrategy().withType("RollingUpdate").withNewRollingUpdate().withMaxSurge(new IntOrString("25%")).withMaxUnavailable(new IntOrString("25%"))
                .endRollingUpdate().endStrategy()
                .withNewSelector().withMatchLabels(Map.of("app", name)).endSelector()
                .withNewTemplate().withNewMetadata().withLabels(Map.of("app", name)).endMetadata()
                .withNewSpec().addNewContainer().withName("web").withImage(image).endContainer().endSpec().endTemplate()
                .endSpec()
                .build();
    }
}
