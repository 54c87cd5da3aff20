package io.k4j.controllers.statefulset;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.testing.FakeEventRecorder;
import io.k4j.controllerkit.testing.MutableClock;
import io.k4j.controllers.history.ControllerHistory;
import io.k4j.controllers.history.InMemoryRevisionStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class StatefulSetControllerTest {
    private static final String KEY = "default/web";

    private final CacheImpl<StatefulSet> setCache = new CacheImpl<>();
    private final CacheImpl<Pod> podCache = new CacheImpl<>();
    private final CacheImpl<ControllerRevision> revisionCache = new CacheImpl<>();
    private final Map<String, PersistentVolumeClaim> claims = new HashMap<>();
    private final List<String> log = new ArrayList<>();
    private final FakeEventRecorder events = new FakeEventRecorder();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final StatefulPodControl control = new StatefulPodControl() {
        @Override
        public Pod createPod(Pod pod) {
            if (podCache.getByKey("default/" + pod.getMetadata().getName()) != null) {
                throw new KubernetesClientException("exists", 409, null);
            }
            log.add("create pod " + pod.getMetadata().getName());
            Pod created = new PodBuilder(pod).editMetadata().withUid(UUID.randomUUID().toString()).withCreationTimestamp(clock.instant().toString()).endMetadata()
                    .withNewStatus().withPhase("Pending").endStatus().build();
            podCache.put(created);
            return created;
        }

        @Override
        public void deletePod(Pod pod) {
            log.add("delete pod " + pod.getMetadata().getName());
            podCache.put(new PodBuilder(podCache.getByKey("default/" + pod.getMetadata().getName())).editMetadata().withDeletionTimestamp(clock.instant().toString())
                    .endMetadata().build());
        }

        @Override
        public Optional<PersistentVolumeClaim> getClaim(String namespace, String name) {
            return Optional.ofNullable(claims.get(name));
        }

        @Override
        public PersistentVolumeClaim createClaim(PersistentVolumeClaim claim) {
            log.add("create claim " + claim.getMetadata().getName());
            claims.put(claim.getMetadata().getName(), claim);
            return claim;
        }

        @Override
        public void patchClaim(String namespace, String name, String strategicMergePatch) {
            log.add("patch claim " + name);
        }

        @Override
        public void patchPod(String namespace, String name, String strategicMergePatch) {
            throw new UnsupportedOperationException();
        }

        @Override
        public StatefulSet updateStatus(StatefulSet set) {
            setCache.put(new StatefulSetBuilder(set).build());
            return set;
        }
    };
    private final StatefulSetController controller = new StatefulSetController(new Lister<>(setCache), new Lister<>(podCache),
            new ControllerHistory(new InMemoryRevisionStore(revisionCache), new Lister<>(revisionCache)), control, events, clock);

    @Test
    void createsPodsOneAtATimeInOrdinalOrderWithStableIdentityAndClaims() {
        setCache.put(statefulSet(3).build());

        controller.sync(KEY);
        assertThat(log).containsExactly("create claim www-web-0", "create pod web-0");
        // web-0 is not Running and Ready yet: nothing else happens.
        controller.sync(KEY);
        assertThat(log).hasSize(2);

        Pod web0 = podCache.getByKey("default/web-0");
        assertThat(web0.getSpec().getHostname()).isEqualTo("web-0");
        assertThat(web0.getSpec().getSubdomain()).isEqualTo("nginx");
        assertThat(web0.getMetadata().getLabels()).containsEntry(StatefulSetController.POD_NAME_LABEL, "web-0")
                .containsEntry(StatefulSetController.POD_INDEX_LABEL, "0")
                .containsEntry(ControllerHistory.CONTROLLER_REVISION_HASH_LABEL, setCache.getByKey(KEY).getStatus().getUpdateRevision());
        assertThat(web0.getSpec().getVolumes()).anySatisfy(volume -> {
            assertThat(volume.getName()).isEqualTo("www");
            assertThat(volume.getPersistentVolumeClaim().getClaimName()).isEqualTo("www-web-0");
        });
        assertThat(claims.get("www-web-0").getMetadata().getLabels()).containsEntry("app", "nginx");

        makeReady("web-0");
        controller.sync(KEY);
        assertThat(log).endsWith("create pod web-1");
        makeReady("web-1");
        controller.sync(KEY);
        assertThat(log).endsWith("create pod web-2");
        makeReady("web-2");
        controller.sync(KEY);

        assertThat(log).filteredOn(line -> line.startsWith("create pod")).containsExactly("create pod web-0", "create pod web-1", "create pod web-2");
        StatefulSet set = setCache.getByKey(KEY);
        assertThat(set.getStatus().getReplicas()).isEqualTo(3);
        assertThat(set.getStatus().getReadyReplicas()).isEqualTo(3);
        assertThat(set.getStatus().getAvailableReplicas()).isEqualTo(3);
        assertThat(set.getStatus().getCurrentRevision()).isEqualTo(set.getStatus().getUpdateRevision());
        assertThat(events.events()).contains("Normal SuccessfulCreate create Pod web-0 in StatefulSet web successful",
                "Normal SuccessfulCreate create Claim www-web-0 Pod web-0 in StatefulSet web success");
    }

    @Test
    void parallelCreatesEveryPodAtOnce() {
        setCache.put(statefulSet(3).editSpec().withPodManagementPolicy("Parallel").endSpec().build());

        controller.sync(KEY);

        assertThat(log).filteredOn(line -> line.startsWith("create pod")).containsExactly("create pod web-0", "create pod web-1", "create pod web-2");
    }

    @Test
    void scalesDownFromTheHighestOrdinalOneAtATime() {
        readySet(3);
        setCache.put(new StatefulSetBuilder(setCache.getByKey(KEY)).editSpec().withReplicas(1).withPodManagementPolicy("OrderedReady").endSpec().build());
        log.clear();

        controller.sync(KEY);
        assertThat(log).containsExactly("delete pod web-2");
        controller.sync(KEY);
        assertThat(log).containsExactly("delete pod web-2");

        podCache.remove(podCache.getByKey("default/web-2"));
        controller.sync(KEY);
        assertThat(log).containsExactly("delete pod web-2", "delete pod web-1");
    }

    @Test
    void rollingUpdateGoesDownToThePartitionAndRecordsRevisions() {
        readySet(3);
        String oldRevision = setCache.getByKey(KEY).getStatus().getUpdateRevision();
        setCache.put(new StatefulSetBuilder(setCache.getByKey(KEY)).editSpec()
                .editTemplate().editSpec().editFirstContainer().withImage("nginx:1.27").endContainer().endSpec().endTemplate()
                .withNewUpdateStrategy().withType("RollingUpdate").withNewRollingUpdate().withPartition(1).endRollingUpdate().endUpdateStrategy()
                .endSpec().build());
        log.clear();

        controller.sync(KEY);
        StatefulSet set = setCache.getByKey(KEY);
        String newRevision = set.getStatus().getUpdateRevision();
        assertThat(newRevision).isNotEqualTo(oldRevision);
        assertThat(set.getStatus().getCurrentRevision()).isEqualTo(oldRevision);
        assertThat(log).containsExactly("delete pod web-2");

        recreate("web-2");
        assertThat(podCache.getByKey("default/web-2").getMetadata().getLabels()).containsEntry(ControllerHistory.CONTROLLER_REVISION_HASH_LABEL, newRevision);
        assertThat(podCache.getByKey("default/web-2").getSpec().getContainers().get(0).getImage()).isEqualTo("nginx:1.27");
        makeReady("web-2");
        controller.sync(KEY);
        assertThat(log).endsWith("delete pod web-1");
        recreate("web-1");
        makeReady("web-1");
        controller.sync(KEY);

        // web-0 is below the partition: it keeps the old revision.
        assertThat(log).noneMatch(line -> line.equals("delete pod web-0"));
        set = setCache.getByKey(KEY);
        assertThat(set.getStatus().getUpdatedReplicas()).isEqualTo(2);
        assertThat(set.getStatus().getCurrentReplicas()).isEqualTo(1);
        assertThat(set.getStatus().getCurrentRevision()).isEqualTo(oldRevision);
        assertThat(revisionCache.list()).extracting(ControllerRevision::getRevision).containsExactlyInAnyOrder(1L, 2L);

        // A pod below the partition that is recreated comes back with the current (old) revision.
        podCache.remove(podCache.getByKey("default/web-0"));
        controller.sync(KEY);
        assertThat(podCache.getByKey("default/web-0").getMetadata().getLabels()).containsEntry(ControllerHistory.CONTROLLER_REVISION_HASH_LABEL, oldRevision);
        assertThat(podCache.getByKey("default/web-0").getSpec().getContainers().get(0).getImage()).isEqualTo("nginx:1.25");
    }

    @Test
    void ordinalsComeFromTheName() {
        assertThat(StatefulSetController.ordinal(new PodBuilder().withNewMetadata().withName("web-12").endMetadata().build())).isEqualTo(12);
        assertThat(StatefulSetController.ordinal(new PodBuilder().withNewMetadata().withName("web").endMetadata().build())).isEqualTo(-1);
    }

    private void readySet(int replicas) {
        setCache.put(statefulSet(replicas).editSpec().withPodManagementPolicy("Parallel").endSpec().build());
        controller.sync(KEY);
        for (int ordinal = 0; ordinal < replicas; ordinal++) {
            makeReady("web-" + ordinal);
        }
        controller.sync(KEY);
    }

    /** The deleted pod is gone and the controller creates it again. */
    private void recreate(String name) {
        podCache.remove(podCache.getByKey("default/" + name));
        controller.sync(KEY);
    }

    private void makeReady(String name) {
        Pod pod = podCache.getByKey("default/" + name);
        podCache.put(new PodBuilder(pod).editStatus().withPhase("Running")
                .withConditions(new PodConditionBuilder().withType("Ready").withStatus("True").withLastTransitionTime(clock.instant().toString()).build())
                .endStatus().build());
    }

    private static StatefulSetBuilder statefulSet(int replicas) {
        return new StatefulSetBuilder()
                .withNewMetadata().withName("web").withNamespace("default").withUid("set-uid").withGeneration(1L).endMetadata()
                .withNewSpec().withReplicas(replicas).withServiceName("nginx")
                .withNewSelector().withMatchLabels(Map.of("app", "nginx")).endSelector()
                .withNewTemplate().withNewMetadata().withLabels(Map.of("app", "nginx")).endMetadata()
                .withNewSpec().addNewContainer().withName("nginx").withImage("nginx:1.25").endContainer().endSpec()
                .endTemplate()
                .withVolumeClaimTemplates(new PersistentVolumeClaimBuilder().withNewMetadata().withName("www").endMetadata()
                        .withNewSpec().withAccessModes("ReadWriteOnce").withNewResources().addToRequests("storage", new Quantity("1Gi")).endResources().endSpec()
                        .build())
                .endSpec();
    }
}
