package io.k4j.controllers.deployment;

import static io.k4j.controllers.deployment.DeploymentUtil.PROGRESSING;
import static io.k4j.controllers.deployment.DeploymentUtil.replicas;
import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetCondition;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.k4j.api.selection.SelectorParseException;
import io.k4j.controllerkit.events.EventRecorder;
import io.k4j.controllerkit.informers.EnqueueHandlers;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.informers.ObjectKeys;
import io.k4j.controllerkit.manager.Controller;
import io.k4j.controllerkit.manager.ControllerContext;
import io.k4j.controllerkit.pods.ControllerRefManager;
import io.k4j.controllerkit.pods.OwnerReferences;
import io.k4j.controllerkit.pods.Selectors;
import io.k4j.controllerkit.workqueue.QueueWorkers;
import io.k4j.controllerkit.workqueue.WorkQueue;
import java.net.HttpURLConnection;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rolls Deployments out through ReplicaSets, as upstream's deployment controller: it claims replica sets by selector,
 * names the new one {@code <deployment>-<pod-template-hash>}, scales new and old replica sets by the RollingUpdate
 * (maxSurge/maxUnavailable) or Recreate strategy, scales proportionally when a deployment is resized mid-rollout,
 * keeps revision annotations (so {@code kubectl rollout history/undo} work), cleans up beyond revisionHistoryLimit,
 * honours pause, and reports progress through the Progressing and Available conditions with
 * progressDeadlineSeconds. Thread-safe.
 */
public final class DeploymentController implements Controller {
    public static final String NAME = "deployment";
    public static final String SERVICE_ACCOUNT = "deployment-controller";
    private static final Logger LOG = LoggerFactory.getLogger(NAME);
    private static final String NAMESPACE_TERMINATING_CAUSE = "NamespaceTerminating";

    private final Lister<Deployment> deployments;
    private final Lister<ReplicaSet> replicaSets;
    private final Lister<Pod> pods;
    private final DeploymentClient client;
    private final EventRecorder events;
    private final InstantSource clock;
    private final WorkQueue<String> queue = WorkQueue.withDefaultRateLimiter(NAME);
    private final QueueWorkers<String> workers = new QueueWorkers<>(queue, this::sync);

    /** Builds the controller over listers and a client given directly; handlers are not registered (unit tests). */
    public DeploymentController(
            Lister<Deployment> deployments, Lister<ReplicaSet> replicaSets, Lister<Pod> pods, DeploymentClient client, EventRecorder events, InstantSource clock) {
        this.deployments = requireNonNull(deployments, "deployments is null");
        this.replicaSets = requireNonNull(replicaSets, "replicaSets is null");
        this.pods = requireNonNull(pods, "pods is null");
        this.client = requireNonNull(client, "client is null");
        this.events = requireNonNull(events, "events is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** Builds the controller over the shared informers and registers its handlers. */
    public static DeploymentController create(ControllerContext context) {
        DeploymentController controller = new DeploymentController(
                context.informers().lister(Deployment.class),
                context.informers().lister(ReplicaSet.class),
                context.informers().lister(Pod.class),
                new ApiDeploymentClient(context.clientFor(SERVICE_ACCOUNT)),
                context.eventRecorder(SERVICE_ACCOUNT),
                context.clock());
        context.informers().informer(Deployment.class).addEventHandler(EnqueueHandlers.onEveryChange(controller::enqueue));
        context.informers().informer(ReplicaSet.class).addEventHandler(EnqueueHandlers.of(controller::addReplicaSet, controller::updateReplicaSet, controller::deleteReplicaSet));
        context.informers().informer(Pod.class).addEventHandler(new ResourceEventHandler<Pod>() {
            @Override
            public void onAdd(Pod pod) {
                // Pods matter only when they go away (Recreate waits for old pods to stop).
            }

            @Override
            public void onUpdate(Pod oldPod, Pod newPod) {
                // Replica set status changes carry what the deployment needs about running pods.
            }

            @Override
            public void onDelete(Pod pod, boolean finalStateUnknown) {
                controller.deletePod(pod);
            }
        });
        return controller;
    }

    @Override
    public void start(int workerCount) {
        workers.start(workerCount);
    }

    @Override
    public void close() {
        workers.close();
    }

    WorkQueue<String> queue() {
        return queue;
    }

    // Event handlers.

    void enqueue(Deployment deployment) {
        queue.add(ObjectKeys.key(deployment));
    }

    void addReplicaSet(ReplicaSet replicaSet) {
        if (replicaSet.getMetadata().getDeletionTimestamp() != null) {
            deleteReplicaSet(replicaSet);
            return;
        }
        Optional<OwnerReference> controllerRef = OwnerReferences.controllerOf(replicaSet);
        if (controllerRef.isPresent()) {
            resolveControllerRef(replicaSet.getMetadata().getNamespace(), controllerRef.get()).ifPresent(this::enqueue);
            return;
        }
        // An orphan: every deployment that could adopt it syncs.
        matchingDeployments(replicaSet).forEach(this::enqueue);
    }

    void updateReplicaSet(ReplicaSet oldReplicaSet, ReplicaSet newReplicaSet) {
        if (Objects.equals(oldReplicaSet.getMetadata().getResourceVersion(), newReplicaSet.getMetadata().getResourceVersion())) {
            return;
        }
        Optional<OwnerReference> oldRef = OwnerReferences.controllerOf(oldReplicaSet);
        Optional<OwnerReference> newRef = OwnerReferences.controllerOf(newReplicaSet);
        boolean controllerRefChanged = !Objects.equals(oldRef.map(OwnerReference::getUid), newRef.map(OwnerReference::getUid));
        if (controllerRefChanged && oldRef.isPresent()) {
            resolveControllerRef(oldReplicaSet.getMetadata().getNamespace(), oldRef.get()).ifPresent(this::enqueue);
        }
        if (newRef.isPresent()) {
            resolveControllerRef(newReplicaSet.getMetadata().getNamespace(), newRef.get()).ifPresent(this::enqueue);
            return;
        }
        boolean labelsChanged = !Objects.equals(oldReplicaSet.getMetadata().getLabels(), newReplicaSet.getMetadata().getLabels());
        if (labelsChanged || controllerRefChanged) {
            matchingDeployments(newReplicaSet).forEach(this::enqueue);
        }
    }

    void deleteReplicaSet(ReplicaSet replicaSet) {
        OwnerReferences.controllerOf(replicaSet)
                .flatMap(controllerRef -> resolveControllerRef(replicaSet.getMetadata().getNamespace(), controllerRef))
                .ifPresent(this::enqueue);
    }

    /** A Recreate deployment waits for its old pods to be gone: sync it when its last pod is. */
    void deletePod(Pod pod) {
        Optional<Deployment> deployment = deploymentForPod(pod);
        if (deployment.isEmpty() || DeploymentUtil.isRollingUpdate(deployment.get())) {
            return;
        }
        List<ReplicaSet> owned = replicaSets.list(pod.getMetadata().getNamespace()).stream()
                .filter(replicaSet -> OwnerReferences.isControlledBy(replicaSet, deployment.get().getMetadata().getUid()))
                .toList();
        int remaining = podMap(deployment.get(), owned).values().stream().mapToInt(List::size).sum();
        if (remaining == 0) {
            enqueue(deployment.get());
        }
    }

    private Optional<Deployment> deploymentForPod(Pod pod) {
        Optional<OwnerReference> podOwner = OwnerReferences.controllerOf(pod);
        if (podOwner.isEmpty() || !"ReplicaSet".equals(podOwner.get().getKind())) {
            return Optional.empty();
        }
        Optional<ReplicaSet> replicaSet = replicaSets.get(pod.getMetadata().getNamespace(), podOwner.get().getName())
                .filter(candidate -> podOwner.get().getUid().equals(candidate.getMetadata().getUid()));
        return replicaSet.flatMap(OwnerReferences::controllerOf)
                .flatMap(controllerRef -> resolveControllerRef(pod.getMetadata().getNamespace(), controllerRef));
    }

    private Optional<Deployment> resolveControllerRef(String namespace, OwnerReference controllerRef) {
        if (!"Deployment".equals(controllerRef.getKind())) {
            return Optional.empty();
        }
        return deployments.get(namespace, controllerRef.getName()).filter(deployment -> controllerRef.getUid().equals(deployment.getMetadata().getUid()));
    }

    private List<Deployment> matchingDeployments(ReplicaSet replicaSet) {
        Map<String, String> labels = replicaSet.getMetadata().getLabels();
        if (labels == null || labels.isEmpty()) {
            return List.of();
        }
        List<Deployment> matching = new ArrayList<>();
        for (Deployment deployment : deployments.list(replicaSet.getMetadata().getNamespace())) {
            Optional<io.k4j.api.selection.LabelSelector> selector = selector(deployment);
            if (selector.isPresent() && !selector.get().isEverything() && selector.get().matches(labels)) {
                matching.add(deployment);
            }
        }
        return matching;
    }

    private static Optional<io.k4j.api.selection.LabelSelector> selector(Deployment deployment) {
        try {
            return Optional.of(Selectors.of(deployment.getSpec().getSelector()));
        } catch (SelectorParseException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    // The sync handler.

    /** Reconciles the deployment named by {@code key}. */
    public void sync(String key) {
        Optional<Deployment> found = deployments.getByKey(key);
        if (found.isEmpty()) {
            LOG.debug("deployment {} has been deleted", key);
            return;
        }
        // The cache's object is shared: work on a copy.
        Deployment deployment = new DeploymentBuilder(found.get()).build();
        if (deployment.getStatus() == null) {
            deployment.setStatus(new DeploymentStatus());
        }
        LabelSelector selector = deployment.getSpec().getSelector();
        if (selector != null && isEmpty(selector)) {
            events.event(deployment, EventRecorder.WARNING, "SelectingAll", "This deployment is selecting all pods. A non-empty selector is required.");
            long generation = generation(deployment);
            if (observedGeneration(deployment.getStatus()) < generation) {
                deployment.getStatus().setObservedGeneration(generation);
                updateStatus(deployment);
            }
            return;
        }
        List<ReplicaSet> owned = claimReplicaSets(deployment);
        if (owned == null) {
            return;
        }
        if (deployment.getMetadata().getDeletionTimestamp() != null) {
            syncStatusOnly(deployment, owned);
            return;
        }
        checkPausedConditions(deployment);
        if (DeploymentUtil.isPaused(deployment)) {
            syncScale(deployment, owned);
            return;
        }
        if (isScalingEvent(deployment, owned)) {
            syncScale(deployment, owned);
            return;
        }
        if (DeploymentUtil.isRollingUpdate(deployment)) {
            rolloutRolling(deployment, owned);
        } else {
            rolloutRecreate(deployment, owned, podMap(deployment, owned));
        }
    }

    private static boolean isEmpty(LabelSelector selector) {
        return (selector.getMatchLabels() == null || selector.getMatchLabels().isEmpty())
                && (selector.getMatchExpressions() == null || selector.getMatchExpressions().isEmpty());
    }

    /** The replica sets this deployment owns after adopting matching orphans and releasing what no longer matches; null if its selector is invalid. */
    private List<ReplicaSet> claimReplicaSets(Deployment deployment) {
        Optional<io.k4j.api.selection.LabelSelector> selector = selector(deployment);
        if (selector.isEmpty()) {
            LOG.warn("deployment {} has an invalid selector", ObjectKeys.key(deployment));
            return null;
        }
        OwnerReference controllerRef = OwnerReferences.newControllerRef(deployment, "apps/v1", "Deployment");
        ControllerRefManager<ReplicaSet> manager = new ControllerRefManager<>(
                deployment, controllerRef, selector.get(), () -> canAdopt(deployment), client::patchReplicaSet);
        return new ArrayList<>(manager.claim(replicaSets.list(deployment.getMetadata().getNamespace())));
    }

    private boolean canAdopt(Deployment deployment) {
        Optional<Deployment> fresh = client.getDeployment(deployment.getMetadata().getNamespace(), deployment.getMetadata().getName());
        return fresh.isPresent()
                && Objects.equals(fresh.get().getMetadata().getUid(), deployment.getMetadata().getUid())
                && fresh.get().getMetadata().getDeletionTimestamp() == null;
    }

    /** The deployment's pods grouped by the UID of the replica set (of {@code owned}) that controls them. */
    private Map<String, List<Pod>> podMap(Deployment deployment, List<ReplicaSet> owned) {
        Map<String, List<Pod>> byReplicaSet = new LinkedHashMap<>();
        owned.forEach(replicaSet -> byReplicaSet.put(replicaSet.getMetadata().getUid(), new ArrayList<>()));
        Optional<io.k4j.api.selection.LabelSelector> selector = selector(deployment);
        if (selector.isEmpty()) {
            return byReplicaSet;
        }
        for (Pod pod : pods.list(deployment.getMetadata().getNamespace())) {
            Map<String, String> labels = pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
            if (!selector.get().matches(labels)) {
                continue;
            }
            OwnerReferences.controllerOf(pod).ifPresent(controllerRef -> {
                List<Pod> list = byReplicaSet.get(controllerRef.getUid());
                if (list != null) {
                    list.add(pod);
                }
            });
        }
        return byReplicaSet;
    }

    private void checkPausedConditions(Deployment deployment) {
        if (!DeploymentUtil.hasProgressDeadline(deployment)) {
            return;
        }
        Optional<DeploymentCondition> condition = DeploymentUtil.condition(deployment.getStatus(), PROGRESSING);
        if (condition.isPresent() && DeploymentUtil.TIMED_OUT_REASON.equals(condition.get().getReason())) {
            // A reported lack of progress is not overwritten by a paused condition.
            return;
        }
        boolean pausedConditionExists = condition.isPresent() && DeploymentUtil.PAUSED_REASON.equals(condition.get().getReason());
        boolean paused = DeploymentUtil.isPaused(deployment);
        if (paused && !pausedConditionExists) {
            DeploymentUtil.setCondition(deployment.getStatus(),
                    DeploymentUtil.newCondition(PROGRESSING, "Unknown", DeploymentUtil.PAUSED_REASON, "Deployment is paused", clock.instant()));
        } else if (!paused && pausedConditionExists) {
            DeploymentUtil.setCondition(deployment.getStatus(),
                    DeploymentUtil.newCondition(PROGRESSING, "Unknown", DeploymentUtil.RESUMED_REASON, "Deployment is resumed", clock.instant()));
        } else {
            return;
        }
        updateStatus(deployment);
    }

    // Scaling (paused deployments and resizes).

    private void syncStatusOnly(Deployment deployment, List<ReplicaSet> owned) {
        NewAndOld sets = getAllReplicaSetsAndSyncRevision(deployment, owned, false);
        syncDeploymentStatus(sets.all(), sets.newReplicaSet(), deployment);
    }

    private void syncScale(Deployment deployment, List<ReplicaSet> owned) {
        NewAndOld sets = getAllReplicaSetsAndSyncRevision(deployment, owned, false);
        scale(deployment, sets.newReplicaSet(), sets.old());
        if (DeploymentUtil.isPaused(deployment)) {
            cleanupDeployment(sets.old(), deployment);
        }
        syncDeploymentStatus(sets.all(), sets.newReplicaSet(), deployment);
    }

    /** A resize: some active replica set was last sized for another replica count than the deployment's. */
    private boolean isScalingEvent(Deployment deployment, List<ReplicaSet> owned) {
        NewAndOld sets = getAllReplicaSetsAndSyncRevision(deployment, owned, false);
        for (ReplicaSet replicaSet : DeploymentUtil.active(sets.all())) {
            Optional<Integer> desired = DeploymentUtil.intAnnotation(replicaSet, DeploymentUtil.DESIRED_REPLICAS_ANNOTATION);
            if (desired.isPresent() && desired.get() != replicas(deployment)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Upstream's {@code scale}: a single active replica set takes the whole size; a saturated new one lets the old
     * ones go to zero; otherwise (mid-rollout) the change is spread proportionally over the active replica sets.
     */
    void scale(Deployment deployment, ReplicaSet newReplicaSet, List<ReplicaSet> oldReplicaSets) {
        ReplicaSet activeOrLatest = DeploymentUtil.findActiveOrLatest(newReplicaSet, oldReplicaSets);
        if (activeOrLatest != null) {
            if (replicas(activeOrLatest) != replicas(deployment)) {
                scaleReplicaSetAndRecordEvent(activeOrLatest, replicas(deployment), deployment);
            }
            return;
        }
        if (DeploymentUtil.isSaturated(deployment, newReplicaSet)) {
            for (ReplicaSet old : DeploymentUtil.active(oldReplicaSets)) {
                scaleReplicaSetAndRecordEvent(old, 0, deployment);
            }
            return;
        }
        if (!DeploymentUtil.isRollingUpdate(deployment)) {
            return;
        }
        List<ReplicaSet> withNew = new ArrayList<>(oldReplicaSets);
        if (newReplicaSet != null) {
            withNew.add(newReplicaSet);
        }
        List<ReplicaSet> active = new ArrayList<>(DeploymentUtil.active(withNew));
        int current = DeploymentUtil.specReplicas(active);
        int allowed = replicas(deployment) > 0 ? replicas(deployment) + DeploymentUtil.maxSurge(deployment) : 0;
        int toAdd = allowed - current;
        String operation = "";
        if (toAdd > 0) {
            active.sort(DeploymentUtil.BY_SIZE_NEWER);
            operation = "up";
        } else if (toAdd < 0) {
            active.sort(DeploymentUtil.BY_SIZE_OLDER);
            operation = "down";
        }
        int added = 0;
        Map<String, Integer> sizes = new HashMap<>();
        for (ReplicaSet replicaSet : active) {
            if (toAdd != 0) {
                int proportion = DeploymentUtil.proportion(replicaSet, deployment, toAdd, added);
                sizes.put(replicaSet.getMetadata().getName(), replicas(replicaSet) + proportion);
                added += proportion;
            } else {
                sizes.put(replicaSet.getMetadata().getName(), replicas(replicaSet));
            }
        }
        for (int index = 0; index < active.size(); index++) {
            ReplicaSet replicaSet = active.get(index);
            String name = replicaSet.getMetadata().getName();
            // Leftovers from rounding go to the largest replica set.
            if (index == 0 && toAdd != 0) {
                sizes.put(name, Math.max(0, sizes.get(name) + toAdd - added));
            }
            scaleReplicaSet(replicaSet, sizes.get(name), deployment, operation);
        }
    }

    /** Scales one replica set; returns it as stored afterwards (unchanged when no write was needed). */
    ReplicaSet scaleReplicaSetAndRecordEvent(ReplicaSet replicaSet, int newScale, Deployment deployment) {
        if (replicas(replicaSet) == newScale) {
            return replicaSet;
        }
        return scaleReplicaSet(replicaSet, newScale, deployment, replicas(replicaSet) < newScale ? "up" : "down");
    }

    private ReplicaSet scaleReplicaSet(ReplicaSet replicaSet, int newScale, Deployment deployment, String operation) {
        boolean sizeNeedsUpdate = replicas(replicaSet) != newScale;
        int maxReplicas = replicas(deployment) + DeploymentUtil.maxSurge(deployment);
        boolean annotationsNeedUpdate = DeploymentUtil.replicasAnnotationsNeedUpdate(replicaSet, replicas(deployment), maxReplicas);
        if (!sizeNeedsUpdate && !annotationsNeedUpdate) {
            return replicaSet;
        }
        int oldScale = replicas(replicaSet);
        ReplicaSet copy = new ReplicaSetBuilder(replicaSet).build();
        copy.getSpec().setReplicas(newScale);
        DeploymentUtil.setReplicasAnnotations(copy, replicas(deployment), maxReplicas);
        ReplicaSet updated = client.updateReplicaSet(copy);
        if (sizeNeedsUpdate) {
            events.eventf(deployment, EventRecorder.NORMAL, "ScalingReplicaSet", "Scaled %s replica set %s to %d from %d",
                    operation, updated.getMetadata().getName(), newScale, oldScale);
        }
        return updated;
    }

    // Revisions and the new replica set.

    /** The new replica set (null when none matches the template) and all old ones, with revisions synced. */
    record NewAndOld(ReplicaSet newReplicaSet, List<ReplicaSet> old) {
        List<ReplicaSet> all() {
            List<ReplicaSet> all = new ArrayList<>(old);
            if (newReplicaSet != null) {
                all.add(newReplicaSet);
            }
            return all;
        }
    }

    NewAndOld getAllReplicaSetsAndSyncRevision(Deployment deployment, List<ReplicaSet> owned, boolean createIfMissing) {
        Optional<ReplicaSet> existing = findNewReplicaSet(deployment, owned);
        List<ReplicaSet> old = new ArrayList<>(owned.stream()
                .filter(replicaSet -> existing.isEmpty() || !existing.get().getMetadata().getUid().equals(replicaSet.getMetadata().getUid()))
                .toList());
        ReplicaSet newReplicaSet = getNewReplicaSet(deployment, owned, existing, old, createIfMissing);
        return new NewAndOld(newReplicaSet, old);
    }

    /** The oldest owned replica set whose template equals the deployment's apart from the hash label. */
    static Optional<ReplicaSet> findNewReplicaSet(Deployment deployment, List<ReplicaSet> owned) {
        List<ReplicaSet> sorted = new ArrayList<>(owned);
        sorted.sort(DeploymentUtil.BY_CREATION);
        return sorted.stream().filter(replicaSet -> DeploymentUtil.equalIgnoreHash(replicaSet.getSpec().getTemplate(), deployment.getSpec().getTemplate())).findFirst();
    }

    private ReplicaSet getNewReplicaSet(Deployment deployment, List<ReplicaSet> owned, Optional<ReplicaSet> existing, List<ReplicaSet> old, boolean createIfMissing) {
        long maxOldRevision = DeploymentUtil.maxRevision(old);
        String newRevision = Long.toString(maxOldRevision + 1);
        if (existing.isPresent()) {
            ReplicaSet copy = new ReplicaSetBuilder(existing.get()).build();
            boolean annotationsUpdated = DeploymentUtil.setNewReplicaSetAnnotations(deployment, copy, newRevision, true);
            boolean minReadySecondsNeedsUpdate = copy.getSpec().getMinReadySeconds() == null
                    ? DeploymentUtil.minReadySeconds(deployment) != 0
                    : copy.getSpec().getMinReadySeconds() != DeploymentUtil.minReadySeconds(deployment);
            if (annotationsUpdated || minReadySecondsNeedsUpdate) {
                copy.getSpec().setMinReadySeconds(DeploymentUtil.minReadySeconds(deployment));
                ReplicaSet updated = client.updateReplicaSet(copy);
                // Later steps of this sync start from the owned list: let them see the stored version, not a stale one.
                owned.replaceAll(replicaSet -> replicaSet.getMetadata().getUid().equals(updated.getMetadata().getUid()) ? updated : replicaSet);
                return updated;
            }
            String revision = copy.getMetadata().getAnnotations() == null ? null : copy.getMetadata().getAnnotations().get(DeploymentUtil.REVISION_ANNOTATION);
            boolean needsUpdate = DeploymentUtil.setDeploymentRevision(deployment, revision == null ? "" : revision);
            if (DeploymentUtil.hasProgressDeadline(deployment) && DeploymentUtil.condition(deployment.getStatus(), PROGRESSING).isEmpty()) {
                DeploymentUtil.setCondition(deployment.getStatus(), DeploymentUtil.newCondition(PROGRESSING, "True", DeploymentUtil.FOUND_NEW_REPLICA_SET_REASON,
                        "Found new replica set \"" + copy.getMetadata().getName() + "\"", clock.instant()));
                needsUpdate = true;
            }
            if (needsUpdate) {
                updateStatus(deployment);
            }
            return copy;
        }
        if (!createIfMissing) {
            return null;
        }
        return createNewReplicaSet(deployment, old, newRevision);
    }

    private ReplicaSet createNewReplicaSet(Deployment deployment, List<ReplicaSet> old, String newRevision) {
        Integer collisionCount = deployment.getStatus().getCollisionCount();
        String hash = DeploymentUtil.computeHash(deployment.getSpec().getTemplate(), collisionCount);
        PodTemplateSpec template = new PodTemplateSpecBuilder(deployment.getSpec().getTemplate()).build();
        if (template.getMetadata() == null) {
            template.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMeta());
        }
        Map<String, String> labels = template.getMetadata().getLabels() == null ? new HashMap<>() : new HashMap<>(template.getMetadata().getLabels());
        labels.put(DeploymentUtil.POD_TEMPLATE_HASH_LABEL, hash);
        template.getMetadata().setLabels(labels);
        LabelSelector selector = new LabelSelectorBuilder(deployment.getSpec().getSelector()).build();
        Map<String, String> matchLabels = selector.getMatchLabels() == null ? new HashMap<>() : new HashMap<>(selector.getMatchLabels());
        matchLabels.put(DeploymentUtil.POD_TEMPLATE_HASH_LABEL, hash);
        selector.setMatchLabels(matchLabels);

        String name = deployment.getMetadata().getName() + "-" + hash;
        ReplicaSet replicaSet = new ReplicaSetBuilder()
                .withMetadata(new ObjectMetaBuilder()
                        .withName(name)
                        .withNamespace(deployment.getMetadata().getNamespace())
                        .withOwnerReferences(OwnerReferences.newControllerRef(deployment, "apps/v1", "Deployment"))
                        .withLabels(new HashMap<>(labels))
                        .build())
                .withNewSpec()
                .withReplicas(0)
                .withMinReadySeconds(DeploymentUtil.minReadySeconds(deployment))
                .withSelector(selector)
                .withTemplate(template)
                .endSpec()
                .build();
        List<ReplicaSet> all = new ArrayList<>(old);
        all.add(replicaSet);
        int newReplicas = DeploymentUtil.newReplicaSetNewReplicas(deployment, all, replicaSet);
        replicaSet.getSpec().setReplicas(newReplicas);
        DeploymentUtil.setNewReplicaSetAnnotations(deployment, replicaSet, newRevision, false);

        boolean alreadyExists = false;
        ReplicaSet created;
        try {
            created = client.createReplicaSet(replicaSet);
        } catch (KubernetesClientException e) {
            if (e.getCode() == HttpURLConnection.HTTP_CONFLICT && "AlreadyExists".equals(reason(e))) {
                alreadyExists = true;
                Optional<ReplicaSet> cached = replicaSets.get(deployment.getMetadata().getNamespace(), name);
                if (cached.isEmpty()) {
                    throw e;
                }
                if (OwnerReferences.isControlledBy(cached.get(), deployment.getMetadata().getUid())
                        && DeploymentUtil.equalIgnoreHash(deployment.getSpec().getTemplate(), cached.get().getSpec().getTemplate())) {
                    created = cached.get();
                } else {
                    // A different template hashed to an existing name: bump collisionCount and retry on the next sync.
                    int previous = collisionCount == null ? 0 : collisionCount;
                    deployment.getStatus().setCollisionCount(previous + 1);
                    try {
                        updateStatus(deployment);
                        LOG.info("hash collision for deployment {}: collisionCount {} -> {}", ObjectKeys.key(deployment), previous, previous + 1);
                    } catch (KubernetesClientException ignored) {
                        // The original error requeues the deployment either way.
                    }
                    throw e;
                }
            } else if (hasCause(e, NAMESPACE_TERMINATING_CAUSE)) {
                throw e;
            } else {
                String message = "Failed to create new replica set \"" + name + "\": " + message(e);
                if (DeploymentUtil.hasProgressDeadline(deployment)) {
                    DeploymentUtil.setCondition(deployment.getStatus(),
                            DeploymentUtil.newCondition(PROGRESSING, "False", DeploymentUtil.FAILED_REPLICA_SET_CREATE_REASON, message, clock.instant()));
                    try {
                        updateStatus(deployment);
                    } catch (KubernetesClientException ignored) {
                        // The create failure is the error worth reporting.
                    }
                }
                events.event(deployment, EventRecorder.WARNING, DeploymentUtil.FAILED_REPLICA_SET_CREATE_REASON, message);
                throw e;
            }
        }
        if (!alreadyExists && newReplicas > 0) {
            events.eventf(deployment, EventRecorder.NORMAL, "ScalingReplicaSet", "Scaled up replica set %s to %d", created.getMetadata().getName(), newReplicas);
        }
        boolean needsUpdate = DeploymentUtil.setDeploymentRevision(deployment, newRevision);
        if (!alreadyExists && DeploymentUtil.hasProgressDeadline(deployment)) {
            DeploymentUtil.setCondition(deployment.getStatus(), DeploymentUtil.newCondition(PROGRESSING, "True", DeploymentUtil.NEW_REPLICA_SET_REASON,
                    "Created new replica set \"" + created.getMetadata().getName() + "\"", clock.instant()));
            needsUpdate = true;
        }
        if (needsUpdate) {
            updateStatus(deployment);
        }
        return created;
    }

    // RollingUpdate.

    private void rolloutRolling(Deployment deployment, List<ReplicaSet> owned) {
        NewAndOld sets = getAllReplicaSetsAndSyncRevision(deployment, owned, true);
        ReplicaSet newReplicaSet = sets.newReplicaSet();
        List<ReplicaSet> all = sets.all();
        if (reconcileNewReplicaSet(all, newReplicaSet, deployment)) {
            syncRolloutStatus(all, newReplicaSet, deployment);
            return;
        }
        if (reconcileOldReplicaSets(all, new ArrayList<>(DeploymentUtil.active(sets.old())), newReplicaSet, deployment)) {
            syncRolloutStatus(all, newReplicaSet, deployment);
            return;
        }
        if (DeploymentUtil.deploymentComplete(deployment, deployment.getStatus())) {
            cleanupDeployment(sets.old(), deployment);
        }
        syncRolloutStatus(all, newReplicaSet, deployment);
    }

    /** Scales the new replica set up as far as maxSurge allows (or down to the deployment's size); true if it scaled. */
    private boolean reconcileNewReplicaSet(List<ReplicaSet> all, ReplicaSet newReplicaSet, Deployment deployment) {
        if (replicas(newReplicaSet) == replicas(deployment)) {
            return false;
        }
        if (replicas(newReplicaSet) > replicas(deployment)) {
            return replicas(scaleReplicaSetAndRecordEvent(newReplicaSet, replicas(deployment), deployment)) != replicas(newReplicaSet);
        }
        int newReplicas = DeploymentUtil.newReplicaSetNewReplicas(deployment, all, newReplicaSet);
        return replicas(scaleReplicaSetAndRecordEvent(newReplicaSet, newReplicas, deployment)) != replicas(newReplicaSet);
    }

    /** Scales old replica sets down as far as maxUnavailable allows, unhealthy replicas first; true if any scaled. */
    private boolean reconcileOldReplicaSets(List<ReplicaSet> all, List<ReplicaSet> oldActive, ReplicaSet newReplicaSet, Deployment deployment) {
        int oldPods = DeploymentUtil.specReplicas(oldActive);
        if (oldPods == 0) {
            return false;
        }
        int allPods = DeploymentUtil.specReplicas(all);
        int minAvailable = replicas(deployment) - DeploymentUtil.maxUnavailable(deployment);
        int newUnavailable = replicas(newReplicaSet) - DeploymentUtil.availableReplicas(newReplicaSet);
        int maxScaledDown = allPods - minAvailable - newUnavailable;
        if (maxScaledDown <= 0) {
            return false;
        }
        int cleanedUp = cleanupUnhealthyReplicas(oldActive, deployment, maxScaledDown);
        List<ReplicaSet> afterCleanup = new ArrayList<>(oldActive);
        afterCleanup.add(newReplicaSet);
        int scaledDown = scaleDownOldReplicaSetsForRollingUpdate(afterCleanup, oldActive, deployment);
        return cleanedUp + scaledDown > 0;
    }

    /** Removes old replicas that are not available (they block the rollout otherwise); replaces entries of {@code old} with the scaled sets. */
    private int cleanupUnhealthyReplicas(List<ReplicaSet> old, Deployment deployment, int maxCleanupCount) {
        old.sort(DeploymentUtil.BY_CREATION);
        int total = 0;
        for (int index = 0; index < old.size(); index++) {
            ReplicaSet target = old.get(index);
            if (total >= maxCleanupCount) {
                break;
            }
            int unhealthy = replicas(target) - DeploymentUtil.availableReplicas(target);
            if (replicas(target) == 0 || unhealthy <= 0) {
                continue;
            }
            int count = Math.min(maxCleanupCount - total, unhealthy);
            old.set(index, scaleReplicaSetAndRecordEvent(target, replicas(target) - count, deployment));
            total += count;
        }
        return total;
    }

    private int scaleDownOldReplicaSetsForRollingUpdate(List<ReplicaSet> all, List<ReplicaSet> old, Deployment deployment) {
        int minAvailable = replicas(deployment) - DeploymentUtil.maxUnavailable(deployment);
        int available = DeploymentUtil.availableReplicas(all);
        if (available <= minAvailable) {
            return 0;
        }
        old.sort(DeploymentUtil.BY_CREATION);
        int total = 0;
        int toScaleDown = available - minAvailable;
        for (ReplicaSet target : old) {
            if (total >= toScaleDown) {
                break;
            }
            if (replicas(target) == 0) {
                continue;
            }
            int count = Math.min(replicas(target), toScaleDown - total);
            scaleReplicaSetAndRecordEvent(target, replicas(target) - count, deployment);
            total += count;
        }
        return total;
    }

    // Recreate.

    private void rolloutRecreate(Deployment deployment, List<ReplicaSet> owned, Map<String, List<Pod>> podMap) {
        // No new replica set yet: it must not scale up before the old ones are down.
        NewAndOld sets = getAllReplicaSetsAndSyncRevision(deployment, owned, false);
        ReplicaSet newReplicaSet = sets.newReplicaSet();
        List<ReplicaSet> old = sets.old();
        boolean scaledDown = false;
        for (ReplicaSet replicaSet : DeploymentUtil.active(old)) {
            ReplicaSet scaled = scaleReplicaSetAndRecordEvent(replicaSet, 0, deployment);
            if (replicas(scaled) != replicas(replicaSet)) {
                scaledDown = true;
            }
        }
        if (scaledDown) {
            syncRolloutStatus(sets.all(), newReplicaSet, deployment);
            return;
        }
        if (oldPodsRunning(newReplicaSet, old, podMap)) {
            syncRolloutStatus(sets.all(), newReplicaSet, deployment);
            return;
        }
        if (newReplicaSet == null) {
            sets = getAllReplicaSetsAndSyncRevision(deployment, owned, true);
            newReplicaSet = sets.newReplicaSet();
            old = sets.old();
        }
        scaleReplicaSetAndRecordEvent(newReplicaSet, replicas(deployment), deployment);
        if (DeploymentUtil.deploymentComplete(deployment, deployment.getStatus())) {
            cleanupDeployment(old, deployment);
        }
        syncRolloutStatus(sets.all(), newReplicaSet, deployment);
    }

    private static boolean oldPodsRunning(ReplicaSet newReplicaSet, List<ReplicaSet> old, Map<String, List<Pod>> podMap) {
        if (DeploymentUtil.actualReplicas(old) > 0) {
            return true;
        }
        for (Map.Entry<String, List<Pod>> entry : podMap.entrySet()) {
            if (newReplicaSet != null && entry.getKey().equals(newReplicaSet.getMetadata().getUid())) {
                continue;
            }
            for (Pod pod : entry.getValue()) {
                String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
                if (!"Failed".equals(phase) && !"Succeeded".equals(phase)) {
                    return true;
                }
            }
        }
        return false;
    }

    // Cleanup.

    /** Deletes the oldest scaled-down replica sets beyond revisionHistoryLimit. */
    void cleanupDeployment(List<ReplicaSet> old, Deployment deployment) {
        if (!DeploymentUtil.hasRevisionHistoryLimit(deployment)) {
            return;
        }
        List<ReplicaSet> cleanable = new ArrayList<>(old.stream().filter(replicaSet -> replicaSet.getMetadata().getDeletionTimestamp() == null).toList());
        int excess = cleanable.size() - deployment.getSpec().getRevisionHistoryLimit();
        if (excess <= 0) {
            return;
        }
        cleanable.sort(DeploymentUtil.BY_REVISION);
        for (int index = 0; index < excess; index++) {
            ReplicaSet replicaSet = cleanable.get(index);
            long observed = replicaSet.getStatus() == null || replicaSet.getStatus().getObservedGeneration() == null ? 0 : replicaSet.getStatus().getObservedGeneration();
            if (DeploymentUtil.statusReplicas(replicaSet) != 0 || replicas(replicaSet) != 0 || generation(replicaSet.getMetadata().getGeneration()) > observed) {
                continue;
            }
            LOG.debug("deleting old replica set {} of deployment {}", replicaSet.getMetadata().getName(), ObjectKeys.key(deployment));
            client.deleteReplicaSet(replicaSet.getMetadata().getNamespace(), replicaSet.getMetadata().getName());
        }
    }

    // Status.

    private void syncDeploymentStatus(List<ReplicaSet> all, ReplicaSet newReplicaSet, Deployment deployment) {
        DeploymentStatus status = calculateStatus(all, newReplicaSet, deployment);
        if (Objects.equals(deployment.getStatus(), status)) {
            return;
        }
        deployment.setStatus(status);
        updateStatus(deployment);
    }

    DeploymentStatus calculateStatus(List<ReplicaSet> all, ReplicaSet newReplicaSet, Deployment deployment) {
        int available = DeploymentUtil.availableReplicas(all);
        int total = DeploymentUtil.specReplicas(all);
        DeploymentStatus status = new DeploymentStatusBuilder()
                .withObservedGeneration(deployment.getMetadata().getGeneration())
                .withReplicas(DeploymentUtil.actualReplicas(all))
                .withUpdatedReplicas(newReplicaSet == null ? 0 : DeploymentUtil.actualReplicas(List.of(newReplicaSet)))
                .withReadyReplicas(DeploymentUtil.readyReplicas(all))
                .withAvailableReplicas(available)
                .withUnavailableReplicas(Math.max(0, total - available))
                .withCollisionCount(deployment.getStatus().getCollisionCount())
                .build();
        List<DeploymentCondition> conditions = new ArrayList<>();
        if (deployment.getStatus().getConditions() != null) {
            deployment.getStatus().getConditions().forEach(condition -> conditions.add(new io.fabric8.kubernetes.api.model.apps.DeploymentConditionBuilder(condition).build()));
        }
        status.setConditions(conditions);
        Instant now = clock.instant();
        if (available >= replicas(deployment) - DeploymentUtil.maxUnavailable(deployment)) {
            DeploymentUtil.setCondition(status, DeploymentUtil.newCondition(DeploymentUtil.AVAILABLE, "True", DeploymentUtil.MINIMUM_REPLICAS_AVAILABLE,
                    "Deployment has minimum availability.", now));
        } else {
            DeploymentUtil.setCondition(status, DeploymentUtil.newCondition(DeploymentUtil.AVAILABLE, "False", DeploymentUtil.MINIMUM_REPLICAS_UNAVAILABLE,
                    "Deployment does not have minimum availability.", now));
        }
        return status;
    }

    /** The status with progress conditions (upstream's {@code syncRolloutStatus}), requeueing a deployment that may get stuck. */
    private void syncRolloutStatus(List<ReplicaSet> all, ReplicaSet newReplicaSet, Deployment deployment) {
        DeploymentStatus status = calculateStatus(all, newReplicaSet, deployment);
        Instant now = clock.instant();
        if (!DeploymentUtil.hasProgressDeadline(deployment)) {
            DeploymentUtil.removeCondition(status, PROGRESSING);
        }
        Optional<DeploymentCondition> current = DeploymentUtil.condition(deployment.getStatus(), PROGRESSING);
        boolean complete = DeploymentUtil.value(status.getReplicas()) == DeploymentUtil.value(status.getUpdatedReplicas())
                && current.isPresent() && DeploymentUtil.NEW_REPLICA_SET_AVAILABLE_REASON.equals(current.get().getReason());
        if (DeploymentUtil.hasProgressDeadline(deployment) && !complete) {
            String subject = newReplicaSet != null ? "ReplicaSet \"" + newReplicaSet.getMetadata().getName() + "\"" : "Deployment \"" + deployment.getMetadata().getName() + "\"";
            if (DeploymentUtil.deploymentComplete(deployment, status)) {
                DeploymentUtil.setCondition(status, DeploymentUtil.newCondition(PROGRESSING, "True", DeploymentUtil.NEW_REPLICA_SET_AVAILABLE_REASON,
                        subject + " has successfully progressed.", now));
            } else if (DeploymentUtil.deploymentProgressing(deployment, status)) {
                DeploymentCondition condition = DeploymentUtil.newCondition(PROGRESSING, "True", DeploymentUtil.REPLICA_SET_UPDATED_REASON,
                        subject + " is progressing.", now);
                // Progress refreshes lastUpdateTime even with an unchanged reason, keeping the transition time.
                if (current.isPresent()) {
                    if ("True".equals(current.get().getStatus())) {
                        condition.setLastTransitionTime(current.get().getLastTransitionTime());
                    }
                    DeploymentUtil.removeCondition(status, PROGRESSING);
                }
                DeploymentUtil.setCondition(status, condition);
            } else if (DeploymentUtil.deploymentTimedOut(deployment, status, now)) {
                DeploymentUtil.setCondition(status, DeploymentUtil.newCondition(PROGRESSING, "False", DeploymentUtil.TIMED_OUT_REASON,
                        subject + " has timed out progressing.", now));
            }
        }
        List<DeploymentCondition> failures = replicaFailures(all, newReplicaSet);
        if (!failures.isEmpty()) {
            DeploymentUtil.setCondition(status, failures.get(0));
        } else {
            DeploymentUtil.removeCondition(status, DeploymentUtil.REPLICA_FAILURE);
        }
        if (Objects.equals(deployment.getStatus(), status)) {
            requeueStuckDeployment(deployment, status, now);
            return;
        }
        deployment.setStatus(status);
        updateStatus(deployment);
    }

    /** ReplicaFailure conditions of the new replica set, or else of the old ones. */
    private static List<DeploymentCondition> replicaFailures(List<ReplicaSet> all, ReplicaSet newReplicaSet) {
        List<DeploymentCondition> failures = new ArrayList<>();
        if (newReplicaSet != null) {
            failures.addAll(failuresOf(newReplicaSet));
        }
        if (!failures.isEmpty()) {
            return failures;
        }
        for (ReplicaSet replicaSet : all) {
            failures.addAll(failuresOf(replicaSet));
        }
        return failures;
    }

    private static List<DeploymentCondition> failuresOf(ReplicaSet replicaSet) {
        if (replicaSet.getStatus() == null || replicaSet.getStatus().getConditions() == null) {
            return List.of();
        }
        List<DeploymentCondition> failures = new ArrayList<>();
        for (ReplicaSetCondition condition : replicaSet.getStatus().getConditions()) {
            if (DeploymentUtil.REPLICA_FAILURE.equals(condition.getType())) {
                failures.add(DeploymentUtil.fromReplicaSetCondition(condition));
            }
        }
        return failures;
    }

    /**
     * Without visible progress the deployment is checked again when its deadline passes, so a stuck rollout turns
     * ProgressDeadlineExceeded without waiting for an unrelated event.
     *
     * @return the delay used, or null when none was needed
     */
    Duration requeueStuckDeployment(Deployment deployment, DeploymentStatus status, Instant now) {
        Optional<DeploymentCondition> current = DeploymentUtil.condition(deployment.getStatus(), PROGRESSING);
        if (!DeploymentUtil.hasProgressDeadline(deployment) || current.isEmpty()) {
            return null;
        }
        if (DeploymentUtil.deploymentComplete(deployment, status) || DeploymentUtil.TIMED_OUT_REASON.equals(current.get().getReason())) {
            return null;
        }
        String lastUpdate = current.get().getLastUpdateTime();
        if (lastUpdate == null || lastUpdate.isEmpty()) {
            return null;
        }
        Duration after = Duration.between(now, Instant.parse(lastUpdate).plusSeconds(deployment.getSpec().getProgressDeadlineSeconds()));
        String key = ObjectKeys.key(deployment);
        if (after.compareTo(Duration.ofSeconds(1)) < 0) {
            queue.addRateLimited(key);
            return Duration.ZERO;
        }
        queue.addAfter(key, after.plusSeconds(1));
        return after;
    }

    /** Writes the working copy's status and annotations, and keeps the working copy at the stored resourceVersion. */
    private void updateStatus(Deployment deployment) {
        Deployment updated = client.updateDeploymentStatus(deployment);
        if (updated != null && updated.getMetadata() != null) {
            deployment.getMetadata().setResourceVersion(updated.getMetadata().getResourceVersion());
        }
    }

    private static long generation(Deployment deployment) {
        return generation(deployment.getMetadata().getGeneration());
    }

    private static long generation(Long generation) {
        return generation == null ? 0 : generation;
    }

    private static long observedGeneration(DeploymentStatus status) {
        return status.getObservedGeneration() == null ? 0 : status.getObservedGeneration();
    }

    private static String reason(KubernetesClientException e) {
        return e.getStatus() == null ? null : e.getStatus().getReason();
    }

    private static boolean hasCause(KubernetesClientException e, String causeType) {
        if (e.getStatus() == null || e.getStatus().getDetails() == null || e.getStatus().getDetails().getCauses() == null) {
            return false;
        }
        for (StatusCause cause : e.getStatus().getDetails().getCauses()) {
            if (causeType.equals(cause.getReason())) {
                return true;
            }
        }
        return false;
    }

    private static String message(KubernetesClientException e) {
        if (e.getStatus() != null && e.getStatus().getMessage() != null && !e.getStatus().getMessage().isEmpty()) {
            return e.getStatus().getMessage();
        }
        return e.getMessage();
    }
}
