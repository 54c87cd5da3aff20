package io.k4j.controllers.statefulset;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.k4j.api.selection.LabelSelector;
import io.k4j.controllerkit.events.EventRecorder;
import io.k4j.controllerkit.informers.EnqueueHandlers;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.informers.ObjectKeys;
import io.k4j.controllerkit.manager.Controller;
import io.k4j.controllerkit.manager.ControllerContext;
import io.k4j.controllerkit.pods.ApiPodControl;
import io.k4j.controllerkit.pods.ControllerRefManager;
import io.k4j.controllerkit.pods.OwnerReferences;
import io.k4j.controllerkit.pods.Pods;
import io.k4j.controllerkit.pods.Selectors;
import io.k4j.controllerkit.workqueue.QueueWorkers;
import io.k4j.controllerkit.workqueue.WorkQueue;
import io.k4j.controllers.history.ControllerHistory;
import io.k4j.controllers.history.RevisionStore;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Gives each replica of a StatefulSet a stable identity, as upstream's {@code pkg/controller/statefulset}: pods
 * {@code <set>-<ordinal>} with hostname and subdomain, a PVC {@code <claim>-<set>-<ordinal>} per volumeClaimTemplate
 * (kept or deleted per {@code persistentVolumeClaimRetentionPolicy}), OrderedReady (one at a time, each Running and
 * Ready before the next; scale-down from the highest ordinal) or Parallel management, RollingUpdate from the highest
 * ordinal down to {@code partition} with {@code maxUnavailable}, or OnDelete, and ControllerRevisions tracked as
 * {@code currentRevision}/{@code updateRevision}. Thread-safe.
 */
public final class StatefulSetController implements Controller {
    public static final String NAME = "statefulset";
    public static final String SERVICE_ACCOUNT = "statefulset-controller";
    /** Upstream's {@code --concurrent-statefulset-syncs} default. */
    public static final int DEFAULT_WORKERS = 5;

    static final String POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name";
    static final String POD_INDEX_LABEL = "apps.kubernetes.io/pod-index";
    static final int DEFAULT_REVISION_HISTORY_LIMIT = 10;

    private final Lister<StatefulSet> sets;
    private final Lister<Pod> pods;
    private final ControllerHistory history;
    private final StatefulPodControl control;
    private final EventRecorder events;
    private final InstantSource clock;
    private final WorkQueue<String> queue = WorkQueue.withDefaultRateLimiter(NAME);
    private final QueueWorkers<String> workers = QueueWorkers.requeuingAfter(queue, this::sync);

    public StatefulSetController(ControllerContext context) {
        this(context.informers().lister(StatefulSet.class), context.informers().lister(Pod.class),
                new ControllerHistory(RevisionStore.api(context.clientFor(SERVICE_ACCOUNT)), context.informers().lister(ControllerRevision.class)),
                StatefulPodControl.api(context.clientFor(SERVICE_ACCOUNT)), context.eventRecorder(SERVICE_ACCOUNT), context.clock());
        context.informers().informer(StatefulSet.class).addEventHandler(EnqueueHandlers.onEveryChange(set -> queue.add(ObjectKeys.key(set))));
        context.informers().informer(Pod.class).addEventHandler(EnqueueHandlers.onEveryChange(this::enqueueOwner));
        context.informers().informer(ControllerRevision.class).addEventHandler(EnqueueHandlers.onEveryChange(this::enqueueOwner));
    }

    StatefulSetController(Lister<StatefulSet> sets, Lister<Pod> pods, ControllerHistory history, StatefulPodControl control, EventRecorder events, InstantSource clock) {
        this.sets = requireNonNull(sets, "sets is null");
        this.pods = requireNonNull(pods, "pods is null");
        this.history = requireNonNull(history, "history is null");
        this.control = requireNonNull(control, "control is null");
        this.events = requireNonNull(events, "events is null");
        this.clock = requireNonNull(clock, "clock is null");
    }


    private void enqueueOwner(HasMetadata object) {
        OwnerReferences.controllerKey(object, "StatefulSet").ifPresent(queue::add);
    }

    @Override
    public void start(int workerCount) {
        workers.start(workerCount);
    }

    @Override
    public void close() {
        workers.close();
    }

    /**
     * Reconciles one StatefulSet.
     *
     * @return when to look again although nothing changes (a pod becoming available after minReadySeconds)
     */
    Optional<Duration> sync(String key) {
        Optional<StatefulSet> cached = sets.getByKey(key);
        if (cached.isEmpty()) {
            return Optional.empty();
        }
        StatefulSet set = new StatefulSetBuilder(cached.get()).build();
        LabelSelector selector = Selectors.of(set.getSpec().getSelector());
        List<Pod> owned = claimPods(set, selector);
        List<ControllerRevision> revisions = history.list(set, "apps/v1", "StatefulSet", selector);
        int[] collisionCount = {set.getStatus() == null || set.getStatus().getCollisionCount() == null ? 0 : set.getStatus().getCollisionCount()};
        ControllerRevision updateRevision = updateRevision(set, revisions, collisionCount);
        String currentName = set.getStatus() == null ? null : set.getStatus().getCurrentRevision();
        ControllerRevision currentRevision = revisions.stream().filter(revision -> revision.getMetadata().getName().equals(currentName)).findFirst().orElse(updateRevision);
        Pass pass = new Pass(set, owned, currentRevision, updateRevision);
        pass.run();
        StatefulSetStatus status = pass.status(collisionCount[0]);
        truncateHistory(set, revisions, owned, currentRevision, updateRevision);
        if (!Objects.equals(cached.get().getStatus() == null ? null : cached.get().getStatus().toString(), status.toString())) {
            set.setStatus(status);
            control.updateStatus(set);
        }
        return pass.requeue;
    }

    private List<Pod> claimPods(StatefulSet set, LabelSelector selector) {
        String uid = set.getMetadata().getUid();
        List<Pod> candidates = pods.list(set.getMetadata().getNamespace()).stream()
                .filter(pod -> OwnerReferences.isControlledBy(pod, uid) || (selector.matches(labels(pod)) && isMemberOf(set, pod)))
                .toList();
        ControllerRefManager<Pod> manager = new ControllerRefManager<>(set, OwnerReferences.newControllerRef(set, "apps/v1", "StatefulSet"), selector,
                () -> set.getMetadata().getDeletionTimestamp() == null, control::patchPod);
        return manager.claim(candidates);
    }

    private ControllerRevision updateRevision(StatefulSet set, List<ControllerRevision> revisions, int[] collisionCount) {
        long next = ControllerHistory.nextRevision(revisions);
        ControllerRevision wanted = ControllerHistory.newRevision(set, "apps/v1", "StatefulSet", set.getSpec().getTemplate(), next, collisionCount[0]);
        List<ControllerRevision> equal = ControllerHistory.findEqual(revisions, wanted);
        if (equal.isEmpty()) {
            return history.create(set, "apps/v1", "StatefulSet", set.getSpec().getTemplate(), next, collisionCount);
        }
        ControllerRevision newest = equal.get(equal.size() - 1);
        if (newest.getMetadata().getName().equals(revisions.get(revisions.size() - 1).getMetadata().getName())) {
            return newest;
        }
        // The template went back to an older revision: that revision becomes the newest.
        return history.updateRevision(newest, next);
    }

    private void truncateHistory(StatefulSet set, List<ControllerRevision> revisions, List<Pod> owned, ControllerRevision current, ControllerRevision update) {
        int limit = set.getSpec().getRevisionHistoryLimit() == null ? DEFAULT_REVISION_HISTORY_LIMIT : set.getSpec().getRevisionHistoryLimit();
        Set<String> live = new HashSet<>();
        live.add(current.getMetadata().getName());
        live.add(update.getMetadata().getName());
        owned.forEach(pod -> ControllerHistory.hashLabel(pod).ifPresent(live::add));
        List<ControllerRevision> old = revisions.stream().filter(revision -> !live.contains(revision.getMetadata().getName())).toList();
        for (int index = 0; index < old.size() - limit; index++) {
            history.delete(old.get(index));
        }
    }

    /** One reconciliation of the replicas: upstream's {@code updateStatefulSet}. Not thread-safe. */
    private final class Pass {
        private final StatefulSet set;
        private final List<Pod> owned;
        private final ControllerRevision currentRevision;
        private final ControllerRevision updateRevision;
        private final PodTemplateSpec currentTemplate;
        private final int replicaCount;
        private final int startOrdinal;
        private final boolean monotonic;
        private final int minReadySeconds;
        private final Instant now;
        private final Pod[] replicas;
        private final List<Pod> condemned = new ArrayList<>();
        private Optional<Duration> requeue = Optional.empty();

        Pass(StatefulSet set, List<Pod> owned, ControllerRevision currentRevision, ControllerRevision updateRevision) {
            this.set = set;
            this.owned = owned;
            this.currentRevision = currentRevision;
            this.updateRevision = updateRevision;
            this.currentTemplate = ControllerHistory.templateOf(currentRevision);
            this.replicaCount = set.getSpec().getReplicas() == null ? 1 : set.getSpec().getReplicas();
            this.startOrdinal = set.getSpec().getOrdinals() == null || set.getSpec().getOrdinals().getStart() == null ? 0 : set.getSpec().getOrdinals().getStart();
            this.monotonic = !"Parallel".equals(set.getSpec().getPodManagementPolicy());
            this.minReadySeconds = set.getSpec().getMinReadySeconds() == null ? 0 : set.getSpec().getMinReadySeconds();
            this.now = clock.instant();
            this.replicas = new Pod[replicaCount];
            for (Pod pod : owned) {
                int ordinal = ordinal(pod);
                if (ordinal >= startOrdinal && ordinal < startOrdinal + replicaCount) {
                    replicas[ordinal - startOrdinal] = pod;
                } else if (ordinal >= 0) {
                    condemned.add(pod);
                }
            }
            condemned.sort((left, right) -> Integer.compare(ordinal(right), ordinal(left)));
        }

        void run() {
            if (set.getMetadata().getDeletionTimestamp() != null) {
                return;
            }
            for (int index = 0; index < replicaCount; index++) {
                if (!processReplica(index) && monotonic) {
                    return;
                }
            }
            for (Pod pod : condemned) {
                if (Pods.isTerminating(pod)) {
                    if (monotonic) {
                        return;
                    }
                    continue;
                }
                // Scale down waits until every remaining replica is healthy, as upstream's ordered policy does.
                if (monotonic && firstUnhealthy().isPresent()) {
                    return;
                }
                retainOrReleaseClaimsOnScaleDown(pod);
                deletePod(pod);
                if (monotonic) {
                    return;
                }
            }
            String strategy = set.getSpec().getUpdateStrategy() == null || set.getSpec().getUpdateStrategy().getType() == null ? "RollingUpdate"
                    : set.getSpec().getUpdateStrategy().getType();
            if ("RollingUpdate".equals(strategy)) {
                rollingUpdate();
            }
        }

        /** Brings one replica to life; false when an ordered set must wait for it. */
        private boolean processReplica(int index) {
            Pod pod = replicas[index];
            if (pod != null && ("Failed".equals(Pods.phase(pod)) || "Succeeded".equals(Pods.phase(pod))) && !Pods.isTerminating(pod)) {
                // A finished pod never runs again: replace it under the same name.
                deletePod(pod);
                replicas[index] = null;
                return false;
            }
            if (pod == null) {
                int ordinal = startOrdinal + index;
                boolean current = usesCurrentRevision(ordinal);
                Pod created = newPod(current ? currentTemplate : set.getSpec().getTemplate(), current ? currentRevision : updateRevision, ordinal);
                createClaims(created, ordinal);
                try {
                    replicas[index] = control.createPod(created);
                    events.eventf(set, EventRecorder.NORMAL, "SuccessfulCreate", "create Pod %s in StatefulSet %s successful", created.getMetadata().getName(), set.getMetadata().getName());
                } catch (KubernetesClientException e) {
                    if (e.getCode() == 409) {
                        // Created by a previous pass; the cache will show it.
                        return false;
                    }
                    events.eventf(set, EventRecorder.WARNING, "FailedCreate", "create Pod %s in StatefulSet %s failed error: %s",
                            created.getMetadata().getName(), set.getMetadata().getName(), e.getMessage());
                    throw e;
                }
                return false;
            }
            if (Pods.isTerminating(pod)) {
                return false;
            }
            return runningAndReady(pod);
        }

        /** Pods below the partition (or not yet rolled) keep the current revision, as upstream's {@code newVersionedStatefulSetPod}. */
        private boolean usesCurrentRevision(int ordinal) {
            if (currentRevision.getMetadata().getName().equals(updateRevision.getMetadata().getName())) {
                return false;
            }
            String strategy = set.getSpec().getUpdateStrategy() == null || set.getSpec().getUpdateStrategy().getType() == null ? "RollingUpdate"
                    : set.getSpec().getUpdateStrategy().getType();
            if (!"RollingUpdate".equals(strategy)) {
                // OnDelete: new pods use the update revision once someone deletes the old ones.
                return false;
            }
            return ordinal < startOrdinal + partition();
        }

        private void rollingUpdate() {
            int partition = partition();
            int maxUnavailable = maxUnavailable();
            int unavailable = 0;
            for (int index = Math.max(0, partition - startOrdinal); index < replicaCount; index++) {
                Pod pod = replicas[index];
                if (pod == null || Pods.isTerminating(pod) || !Pods.isAvailable(pod, minReadySeconds, now) || !runningAndReady(pod)) {
                    unavailable++;
                }
            }
            // From the highest ordinal down to the partition, replace pods of older revisions.
            for (int index = replicaCount - 1; index >= Math.max(0, partition - startOrdinal); index--) {
                Pod pod = replicas[index];
                if (pod == null || Pods.isTerminating(pod)) {
                    continue;
                }
                boolean outdated = !updateRevision.getMetadata().getName().equals(ControllerHistory.hashLabel(pod).orElse(""));
                if (!outdated) {
                    if (!Pods.isAvailable(pod, minReadySeconds, now) && maxUnavailable == 1) {
                        // The classic rollout waits for each updated pod to be available before the next one.
                        return;
                    }
                    continue;
                }
                boolean healthy = runningAndReady(pod) && Pods.isAvailable(pod, minReadySeconds, now);
                if (healthy && unavailable >= maxUnavailable) {
                    return;
                }
                deletePod(pod);
                if (healthy) {
                    unavailable++;
                }
            }
        }

        private int partition() {
            if (set.getSpec().getUpdateStrategy() == null || set.getSpec().getUpdateStrategy().getRollingUpdate() == null
                    || set.getSpec().getUpdateStrategy().getRollingUpdate().getPartition() == null) {
                return 0;
            }
            return set.getSpec().getUpdateStrategy().getRollingUpdate().getPartition();
        }

        private int maxUnavailable() {
            if (set.getSpec().getUpdateStrategy() == null || set.getSpec().getUpdateStrategy().getRollingUpdate() == null) {
                return 1;
            }
            IntOrString value = set.getSpec().getUpdateStrategy().getRollingUpdate().getMaxUnavailable();
            if (value == null) {
                return 1;
            }
            if (value.getIntVal() != null) {
                return Math.max(1, value.getIntVal());
            }
            String text = value.getStrVal();
            int percent = Integer.parseInt(text.substring(0, text.length() - 1));
            // Percentages round down for StatefulSets, but at least one pod may always be unavailable.
            return Math.max(1, percent * replicaCount / 100);
        }

        private Optional<Pod> firstUnhealthy() {
            for (Pod pod : replicas) {
                if (pod == null || Pods.isTerminating(pod) || !runningAndReady(pod)) {
                    return Optional.ofNullable(pod);
                }
            }
            return Optional.empty();
        }

        private boolean runningAndReady(Pod pod) {
            boolean ready = "Running".equals(Pods.phase(pod)) && Pods.isReady(pod);
            if (ready && minReadySeconds > 0 && !Pods.isAvailable(pod, minReadySeconds, now)) {
                requeue = Optional.of(Duration.ofSeconds(minReadySeconds));
            }
            return ready;
        }

        private void deletePod(Pod pod) {
            try {
                control.deletePod(pod);
                events.eventf(set, EventRecorder.NORMAL, "SuccessfulDelete", "delete Pod %s in StatefulSet %s successful", pod.getMetadata().getName(), set.getMetadata().getName());
            } catch (KubernetesClientException e) {
                if (e.getCode() == 404) {
                    return;
                }
                events.eventf(set, EventRecorder.WARNING, "FailedDelete", "delete Pod %s in StatefulSet %s failed error: %s", pod.getMetadata().getName(), set.getMetadata().getName(), e.getMessage());
                throw e;
            }
        }

        private Pod newPod(PodTemplateSpec template, ControllerRevision revision, int ordinal) {
            String name = set.getMetadata().getName() + "-" + ordinal;
            Pod pod = ApiPodControl.podFromTemplate(template, set, OwnerReferences.newControllerRef(set, "apps/v1", "StatefulSet"));
            pod.getMetadata().setGenerateName(null);
            pod.getMetadata().setName(name);
            pod.getMetadata().setNamespace(set.getMetadata().getNamespace());
            Map<String, String> podLabels = pod.getMetadata().getLabels() == null ? new HashMap<>() : new HashMap<>(pod.getMetadata().getLabels());
            podLabels.put(POD_NAME_LABEL, name);
            podLabels.put(POD_INDEX_LABEL, Integer.toString(ordinal));
            podLabels.put(ControllerHistory.CONTROLLER_REVISION_HASH_LABEL, revision.getMetadata().getName());
            pod.getMetadata().setLabels(podLabels);
            pod.getSpec().setHostname(name);
            if (set.getSpec().getServiceName() != null && !set.getSpec().getServiceName().isEmpty()) {
                pod.getSpec().setSubdomain(set.getSpec().getServiceName());
            }
            if (set.getSpec().getVolumeClaimTemplates() != null && !set.getSpec().getVolumeClaimTemplates().isEmpty()) {
                List<Volume> volumes = pod.getSpec().getVolumes() == null ? new ArrayList<>() : new ArrayList<>(pod.getSpec().getVolumes());
                for (PersistentVolumeClaim claim : set.getSpec().getVolumeClaimTemplates()) {
                    String claimTemplate = claim.getMetadata().getName();
                    volumes.removeIf(volume -> claimTemplate.equals(volume.getName()));
                    volumes.add(new VolumeBuilder().withName(claimTemplate)
                            .withNewPersistentVolumeClaim().withClaimName(claimName(claimTemplate, ordinal)).endPersistentVolumeClaim().build());
                }
                pod.getSpec().setVolumes(volumes);
            }
            return pod;
        }

        private String claimName(String template, int ordinal) {
            return template + "-" + set.getMetadata().getName() + "-" + ordinal;
        }

        private void createClaims(Pod pod, int ordinal) {
            if (set.getSpec().getVolumeClaimTemplates() == null) {
                return;
            }
            for (PersistentVolumeClaim template : set.getSpec().getVolumeClaimTemplates()) {
                String name = claimName(template.getMetadata().getName(), ordinal);
                if (control.getClaim(set.getMetadata().getNamespace(), name).isPresent()) {
                    continue;
                }
                Map<String, String> claimLabels = template.getMetadata().getLabels() == null ? new HashMap<>() : new HashMap<>(template.getMetadata().getLabels());
                if (set.getSpec().getSelector() != null && set.getSpec().getSelector().getMatchLabels() != null) {
                    claimLabels.putAll(set.getSpec().getSelector().getMatchLabels());
                }
                PersistentVolumeClaimBuilder claim = new PersistentVolumeClaimBuilder(template)
                        .editMetadata().withName(name).withNamespace(set.getMetadata().getNamespace()).withLabels(claimLabels)
                        .withResourceVersion(null).withUid(null).endMetadata();
                if ("Delete".equals(whenDeleted())) {
                    claim.editMetadata().withOwnerReferences(ownerReference(set, "apps/v1", "StatefulSet")).endMetadata();
                }
                try {
                    control.createClaim(claim.build());
                    events.eventf(set, EventRecorder.NORMAL, "SuccessfulCreate", "create Claim %s Pod %s in StatefulSet %s success",
                            name, pod.getMetadata().getName(), set.getMetadata().getName());
                } catch (KubernetesClientException e) {
                    if (e.getCode() != 409) {
                        events.eventf(set, EventRecorder.WARNING, "FailedCreate", "create Claim %s for Pod %s in StatefulSet %s failed error: %s",
                                name, pod.getMetadata().getName(), set.getMetadata().getName(), e.getMessage());
                        throw e;
                    }
                }
            }
        }

        /** With {@code whenScaled: Delete}, the condemned pod's claims become owned by the pod, so they go with it. */
        private void retainOrReleaseClaimsOnScaleDown(Pod pod) {
            if (!"Delete".equals(whenScaled()) || set.getSpec().getVolumeClaimTemplates() == null) {
                return;
            }
            int ordinal = ordinal(pod);
            for (PersistentVolumeClaim template : set.getSpec().getVolumeClaimTemplates()) {
                String name = claimName(template.getMetadata().getName(), ordinal);
                String patch = "{\"metadata\":{\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"name\":\"" + pod.getMetadata().getName()
                        + "\",\"uid\":\"" + pod.getMetadata().getUid() + "\"}]}}";
                try {
                    control.patchClaim(set.getMetadata().getNamespace(), name, patch);
                } catch (KubernetesClientException e) {
                    if (e.getCode() != 404) {
                        throw e;
                    }
                }
            }
        }

        private String whenDeleted() {
            return set.getSpec().getPersistentVolumeClaimRetentionPolicy() == null || set.getSpec().getPersistentVolumeClaimRetentionPolicy().getWhenDeleted() == null
                    ? "Retain" : set.getSpec().getPersistentVolumeClaimRetentionPolicy().getWhenDeleted();
        }

        private String whenScaled() {
            return set.getSpec().getPersistentVolumeClaimRetentionPolicy() == null || set.getSpec().getPersistentVolumeClaimRetentionPolicy().getWhenScaled() == null
                    ? "Retain" : set.getSpec().getPersistentVolumeClaimRetentionPolicy().getWhenScaled();
        }

        StatefulSetStatus status(int collisionCount) {
            StatefulSetStatus status = new StatefulSetStatus();
            status.setObservedGeneration(set.getMetadata().getGeneration());
            status.setCollisionCount(collisionCount);
            status.setCurrentRevision(currentRevision.getMetadata().getName());
            status.setUpdateRevision(updateRevision.getMetadata().getName());
            int count = 0;
            int ready = 0;
            int available = 0;
            int current = 0;
            int updated = 0;
            List<Pod> all = new ArrayList<>();
            for (Pod pod : replicas) {
                if (pod != null) {
                    all.add(pod);
                }
            }
            all.addAll(condemned);
            for (Pod pod : all) {
                count++;
                if (runningAndReady(pod) && !Pods.isTerminating(pod)) {
                    ready++;
                    if (Pods.isAvailable(pod, minReadySeconds, now)) {
                        available++;
                    }
                }
                if (!Pods.isTerminating(pod)) {
                    String revision = ControllerHistory.hashLabel(pod).orElse("");
                    if (revision.equals(currentRevision.getMetadata().getName())) {
                        current++;
                    }
                    if (revision.equals(updateRevision.getMetadata().getName())) {
                        updated++;
                    }
                }
            }
            status.setReplicas(count);
            status.setReadyReplicas(ready);
            status.setAvailableReplicas(available);
            status.setCurrentReplicas(current);
            status.setUpdatedReplicas(updated);
            // A finished rolling update makes the update revision the current one.
            if (updated == replicaCount && ready == replicaCount && count == replicaCount) {
                status.setCurrentRevision(updateRevision.getMetadata().getName());
                status.setCurrentReplicas(updated);
            }
            return status;
        }
    }

    private static OwnerReference ownerReference(HasMetadata owner, String apiVersion, String kind) {
        OwnerReference reference = OwnerReferences.newControllerRef(owner, apiVersion, kind);
        reference.setController(null);
        return reference;
    }

    private static final Pattern ORDINAL = Pattern.compile("^(.*)-([0-9]+)$");

    /** The ordinal in {@code <set>-<ordinal>}, -1 when the name has none. */
    static int ordinal(Pod pod) {
        Matcher matcher = ORDINAL.matcher(pod.getMetadata().getName());
        if (!matcher.matches()) {
            return -1;
        }
        try {
            return Integer.parseInt(matcher.group(2));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static boolean isMemberOf(StatefulSet set, Pod pod) {
        Matcher matcher = ORDINAL.matcher(pod.getMetadata().getName());
        return matcher.matches() && matcher.group(1).equals(set.getMetadata().getName());
    }

    private static Map<String, String> labels(HasMetadata object) {
        return object.getMetadata().getLabels() == null ? Map.of() : object.getMetadata().getLabels();
    }
}
