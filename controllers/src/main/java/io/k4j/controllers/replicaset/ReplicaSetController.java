package io.k4j.controllers.replicaset;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.k4j.api.selection.LabelSelector;
import io.k4j.api.selection.SelectorParseException;
import io.k4j.controllerkit.expectations.UidTrackingControllerExpectations;
import io.k4j.controllerkit.informers.EnqueueHandlers;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.informers.ObjectKeys;
import io.k4j.controllerkit.manager.Controller;
import io.k4j.controllerkit.manager.ControllerContext;
import io.k4j.controllerkit.pods.ApiPodControl;
import io.k4j.controllerkit.pods.ControllerRefManager;
import io.k4j.controllerkit.pods.OwnerReferences;
import io.k4j.controllerkit.pods.PodControl;
import io.k4j.controllerkit.pods.Pods;
import io.k4j.controllerkit.pods.Selectors;
import io.k4j.controllerkit.workqueue.QueueWorkers;
import io.k4j.controllerkit.workqueue.WorkQueue;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the number of pods of each replica set at its {@code spec.replicas}, as upstream's ReplicaSet controller:
 * it claims pods by selector (adopting orphans, releasing what no longer matches), creates missing pods in
 * slow-start batches (1, 2, 4, … stopping at the first failure, at most {@link #BURST_REPLICAS} per sync), deletes
 * surplus pods in {@link PodDeletionOrder}, guards both with expectations so a stale cache never makes it act twice,
 * and writes the status through the status subresource when it changed. The same engine runs over
 * ReplicationControllers through another {@link ReplicaSetKind}. Thread-safe.
 *
 * @param <T> the managed kind
 */
public final class ReplicaSetController<T extends HasMetadata> implements Controller {
    /** Upstream's {@code BurstReplicas}: the most pods created or deleted in one sync. */
    public static final int BURST_REPLICAS = 500;
    /** Upstream's {@code SlowStartInitialBatchSize}. */
    static final int SLOW_START_INITIAL_BATCH_SIZE = 1;
    /** Upstream's {@code statusUpdateRetries}. */
    private static final int STATUS_UPDATE_RETRIES = 1;
    private static final String NAMESPACE_TERMINATING_CAUSE = "NamespaceTerminating";

    private final Logger log;
    private final ReplicaSetKind<T> kind;
    private final Lister<T> replicaSets;
    private final Lister<Pod> pods;
    private final ReplicaSetKind.ReplicaSetClient<T> client;
    private final PodControl podControl;
    private final InstantSource clock;
    private final UidTrackingControllerExpectations expectations;
    private final WorkQueue<String> queue;
    private final QueueWorkers<String> workers;

    /** Builds the controller over listers and writers given directly; handlers are not registered (unit tests). */
    public ReplicaSetController(
            ReplicaSetKind<T> kind,
            Lister<T> replicaSets,
            Lister<Pod> pods,
            ReplicaSetKind.ReplicaSetClient<T> client,
            PodControl podControl,
            InstantSource clock) {
        this.kind = requireNonNull(kind, "kind is null");
        this.replicaSets = requireNonNull(replicaSets, "replicaSets is null");
        this.pods = requireNonNull(pods, "pods is null");
        this.client = requireNonNull(client, "client is null");
        this.podControl = requireNonNull(podControl, "podControl is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.expectations = new UidTrackingControllerExpectations(clock);
        this.queue = WorkQueue.withDefaultRateLimiter(kind.controllerName());
        this.workers = new QueueWorkers<>(queue, this::sync);
        this.log = LoggerFactory.getLogger(kind.controllerName());
    }

    /** Builds the controller over the shared informers and registers its event handlers on them. */
    public static <T extends HasMetadata> ReplicaSetController<T> create(ControllerContext context, ReplicaSetKind<T> kind) {
        KubernetesClient writer = context.clientFor(kind.serviceAccount());
        PodControl podControl = new ApiPodControl(writer, context.eventRecorder(kind.serviceAccount()));
        ReplicaSetController<T> controller = new ReplicaSetController<>(
                kind, context.informers().lister(kind.type()), context.informers().lister(Pod.class), kind.client(writer), podControl, context.clock());
        context.informers().informer(kind.type()).addEventHandler(EnqueueHandlers.of(controller::addReplicaSet, controller::updateReplicaSet, controller::deleteReplicaSet));
        context.informers().informer(Pod.class).addEventHandler(EnqueueHandlers.of(controller::addPod, controller::updatePod, controller::deletePod));
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

    UidTrackingControllerExpectations expectations() {
        return expectations;
    }

    // Event handlers: they only compute keys, adjust expectations and enqueue.

    void addReplicaSet(T object) {
        queue.add(ObjectKeys.key(object));
    }

    void updateReplicaSet(T oldObject, T newObject) {
        // A delete and re-create under the same name shows up as an update: forget the old one's expectations.
        if (!Objects.equals(oldObject.getMetadata().getUid(), newObject.getMetadata().getUid())) {
            deleteReplicaSet(oldObject);
        }
        // Always sync: a periodic resync or a status change may be what finally satisfies expectations.
        queue.add(ObjectKeys.key(newObject));
    }

    void deleteReplicaSet(T object) {
        String key = ObjectKeys.key(object);
        expectations.deleteExpectations(key);
        queue.add(key);
    }

    void addPod(Pod pod) {
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            // Seen for the first time while already being deleted (e.g. after a restart): count it as a deletion.
            deletePod(pod);
            return;
        }
        Optional<OwnerReference> controllerRef = OwnerReferences.controllerOf(pod);
        if (controllerRef.isPresent()) {
            resolveControllerRef(pod.getMetadata().getNamespace(), controllerRef.get()).ifPresent(owner -> {
                String key = ObjectKeys.key(owner);
                expectations.creationObserved(key);
                queue.add(key);
            });
            return;
        }
        // An orphan: wake every replica set that could adopt it, never a creation seen for expectations.
        for (T candidate : matchingReplicaSets(pod)) {
            queue.add(ObjectKeys.key(candidate));
        }
    }

    void updatePod(Pod oldPod, Pod newPod) {
        if (Objects.equals(oldPod.getMetadata().getResourceVersion(), newPod.getMetadata().getResourceVersion())) {
            return;
        }
        boolean labelsChanged = !Objects.equals(labels(oldPod), labels(newPod));
        if (newPod.getMetadata().getDeletionTimestamp() != null) {
            // Graceful deletion started: the delete event may come much later, so count the deletion now (once).
            deletePod(newPod);
            if (labelsChanged) {
                deletePod(oldPod);
            }
            return;
        }
        Optional<OwnerReference> oldRef = OwnerReferences.controllerOf(oldPod);
        Optional<OwnerReference> newRef = OwnerReferences.controllerOf(newPod);
        boolean controllerRefChanged = !Objects.equals(oldRef.map(OwnerReference::getUid), newRef.map(OwnerReference::getUid));
        if (controllerRefChanged && oldRef.isPresent()) {
            resolveControllerRef(oldPod.getMetadata().getNamespace(), oldRef.get()).ifPresent(owner -> queue.add(ObjectKeys.key(owner)));
        }
        if (newRef.isPresent()) {
            resolveControllerRef(newPod.getMetadata().getNamespace(), newRef.get()).ifPresent(owner -> {
                queue.add(ObjectKeys.key(owner));
                ReplicaSet view = kind.view(owner);
                int minReadySeconds = minReadySeconds(view);
                // Availability needs a sync once minReadySeconds have passed since the pod became ready.
                if (!Pods.isReady(oldPod) && Pods.isReady(newPod) && minReadySeconds > 0) {
                    queue.addAfter(ObjectKeys.key(owner), Duration.ofSeconds(minReadySeconds).plusSeconds(1));
                }
            });
            return;
        }
        if (labelsChanged || controllerRefChanged) {
            for (T candidate : matchingReplicaSets(newPod)) {
                queue.add(ObjectKeys.key(candidate));
            }
        }
    }

    void deletePod(Pod pod) {
        Optional<OwnerReference> controllerRef = OwnerReferences.controllerOf(pod);
        if (controllerRef.isEmpty()) {
            return;
        }
        resolveControllerRef(pod.getMetadata().getNamespace(), controllerRef.get()).ifPresent(owner -> {
            String key = ObjectKeys.key(owner);
            expectations.deletionObserved(key, ObjectKeys.key(pod));
            queue.add(key);
        });
    }

    private Optional<T> resolveControllerRef(String namespace, OwnerReference controllerRef) {
        if (!kind.kind().equals(controllerRef.getKind()) || !group(kind.apiVersion()).equals(group(controllerRef.getApiVersion()))) {
            return Optional.empty();
        }
        return replicaSets.get(namespace, controllerRef.getName()).filter(owner -> controllerRef.getUid().equals(owner.getMetadata().getUid()));
    }

    private static String group(String apiVersion) {
        int slash = apiVersion == null ? -1 : apiVersion.indexOf('/');
        return slash < 0 ? "" : apiVersion.substring(0, slash);
    }

    /** The replica sets in the pod's namespace whose selector matches it (upstream's {@code GetPodReplicaSets}). */
    private List<T> matchingReplicaSets(Pod pod) {
        Map<String, String> podLabels = labels(pod);
        if (podLabels.isEmpty()) {
            return List.of();
        }
        List<T> matching = new ArrayList<>();
        for (T candidate : replicaSets.list(pod.getMetadata().getNamespace())) {
            LabelSelector selector = selectorOf(kind.view(candidate));
            if (selector != null && !selector.isEverything() && selector.matches(podLabels)) {
                matching.add(candidate);
            }
        }
        if (matching.size() > 1) {
            log.info("more than one {} selects pod {}/{}: {}", kind.kind(), pod.getMetadata().getNamespace(), pod.getMetadata().getName(),
                    matching.stream().map(candidate -> candidate.getMetadata().getName()).toList());
        }
        return matching;
    }

    // The sync handler.

    /** Brings the replica set named by {@code key} to its desired pod count and writes its status. */
    public void sync(String key) {
        Optional<T> found = replicaSets.getByKey(key);
        if (found.isEmpty()) {
            log.debug("{} {} has been deleted", kind.kind(), key);
            expectations.deleteExpectations(key);
            return;
        }
        T object = found.get();
        ReplicaSet view = kind.view(object);
        boolean needsSync = expectations.satisfiedExpectations(key);
        LabelSelector selector = selectorOf(view);
        if (selector == null) {
            // Invalid selectors are rejected by validation; one that slipped through is not retried.
            log.warn("{} {} has an invalid selector", kind.kind(), key);
            return;
        }
        List<Pod> active = pods.list(object.getMetadata().getNamespace()).stream().filter(Pods::isActive).toList();
        List<Pod> owned = claimPods(object, view, selector, active);

        String manageError = null;
        RuntimeException manageException = null;
        if (needsSync && object.getMetadata().getDeletionTimestamp() == null) {
            try {
                manageReplicas(owned, object, view);
            } catch (KubernetesClientException e) {
                manageException = e;
                manageError = message(e);
            }
        }
        ReplicaSetStatus status = ReplicaSetStatuses.calculate(view, owned, manageError, clock.instant());
        ReplicaSet updated = updateStatus(object, view, status);
        if (manageException != null) {
            throw manageException;
        }
        int minReadySeconds = minReadySeconds(updated);
        ReplicaSetStatus written = updated.getStatus() == null ? new ReplicaSetStatus() : updated.getStatus();
        if (minReadySeconds > 0 && value(written.getReadyReplicas()) == desiredReplicas(updated)
                && value(written.getAvailableReplicas()) != desiredReplicas(updated)) {
            queue.addAfter(key, Duration.ofSeconds(minReadySeconds));
        }
    }

    private List<Pod> claimPods(T object, ReplicaSet view, LabelSelector selector, List<Pod> candidates) {
        OwnerReference controllerRef = OwnerReferences.newControllerRef(object, kind.apiVersion(), kind.kind());
        ControllerRefManager<Pod> manager = new ControllerRefManager<>(object, controllerRef, selector, () -> canAdopt(object), podControl::patchPod);
        return manager.claim(candidates);
    }

    /** Upstream's {@code RecheckDeletionTimestamp}: adopt only while the live object is this one and not being deleted. */
    private boolean canAdopt(T object) {
        Optional<T> fresh = client.get(object.getMetadata().getNamespace(), object.getMetadata().getName());
        if (fresh.isEmpty() || !Objects.equals(fresh.get().getMetadata().getUid(), object.getMetadata().getUid())) {
            log.info("{} {}/{} is gone; not adopting pods", kind.kind(), object.getMetadata().getNamespace(), object.getMetadata().getName());
            return false;
        }
        return fresh.get().getMetadata().getDeletionTimestamp() == null;
    }

    private void manageReplicas(List<Pod> owned, T object, ReplicaSet view) {
        String key = ObjectKeys.key(object);
        int difference = owned.size() - desiredReplicas(view);
        if (difference < 0) {
            int toCreate = Math.min(-difference, BURST_REPLICAS);
            // Expect before creating: the watch event of a new pod can arrive before createPod returns.
            expectations.expectCreations(key, toCreate);
            log.debug("too few replicas for {} {}: need {}, creating {}", kind.kind(), key, desiredReplicas(view), toCreate);
            OwnerReference controllerRef = OwnerReferences.newControllerRef(object, kind.apiVersion(), kind.kind());
            SlowStart.Result result = SlowStart.run(toCreate, SLOW_START_INITIAL_BATCH_SIZE, ignored -> {
                try {
                    podControl.createPod(object.getMetadata().getNamespace(), view.getSpec().getTemplate(), object, controllerRef);
                } catch (KubernetesClientException e) {
                    if (hasCause(e, NAMESPACE_TERMINATING_CAUSE)) {
                        // Nothing can be created in a terminating namespace; do not report it as a failure.
                        return;
                    }
                    throw e;
                }
            });
            int skipped = toCreate - result.successes();
            if (skipped > 0) {
                // Creations never attempted or failed produce no watch events: stop waiting for them.
                log.debug("slow-start failure: skipping {} creations for {} {}", skipped, kind.kind(), key);
                expectations.lowerExpectations(key, skipped, 0);
            }
            result.error().ifPresent(error -> {
                throw error;
            });
        } else if (difference > 0) {
            int toDelete = Math.min(difference, BURST_REPLICAS);
            log.debug("too many replicas for {} {}: need {}, deleting {}", kind.kind(), key, desiredReplicas(view), toDelete);
            List<Pod> victims = PodDeletionOrder.podsToDelete(owned, relatedPods(object), toDelete, clock.instant());
            Set<String> victimKeys = new LinkedHashSet<>();
            victims.forEach(pod -> victimKeys.add(ObjectKeys.key(pod)));
            expectations.expectDeletions(key, victimKeys);
            deleteAll(key, object, victims);
        }
    }

    private void deleteAll(String key, T object, List<Pod> victims) {
        List<Future<?>> deletions = new ArrayList<>();
        KubernetesClientException firstError = null;
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Pod victim : victims) {
                deletions.add(executor.submit(() -> {
                    try {
                        podControl.deletePod(victim.getMetadata().getNamespace(), victim.getMetadata().getName(), object);
                    } catch (KubernetesClientException e) {
                        // This deletion will never be observed: stop waiting for it.
                        expectations.deletionObserved(key, ObjectKeys.key(victim));
                        throw e;
                    }
                }));
            }
            for (Future<?> deletion : deletions) {
                try {
                    deletion.get();
                } catch (ExecutionException e) {
                    if (firstError == null && e.getCause() instanceof KubernetesClientException clientError) {
                        firstError = clientError;
                    } else if (!(e.getCause() instanceof KubernetesClientException)) {
                        throw new IllegalStateException(e.getCause());
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while deleting pods", e);
                }
            }
        }
        if (firstError != null) {
            throw firstError;
        }
    }

    /**
     * The pods of every replica set with the same controller as {@code object} (e.g. one Deployment's old and new
     * ones), so deletion can prefer nodes that run several of them (upstream's {@code getIndirectlyRelatedPods}).
     */
    private List<Pod> relatedPods(T object) {
        Optional<OwnerReference> owner = OwnerReferences.controllerOf(object);
        if (owner.isEmpty()) {
            return List.of();
        }
        List<Pod> namespacePods = pods.list(object.getMetadata().getNamespace());
        Set<String> seen = new HashSet<>();
        List<Pod> related = new ArrayList<>();
        for (T sibling : replicaSets.list(object.getMetadata().getNamespace())) {
            if (!OwnerReferences.isControlledBy(sibling, owner.get().getUid())) {
                continue;
            }
            LabelSelector selector = selectorOf(kind.view(sibling));
            if (selector == null) {
                continue;
            }
            for (Pod pod : namespacePods) {
                if (selector.matches(labels(pod)) && seen.add(pod.getMetadata().getUid())) {
                    related.add(pod);
                }
            }
        }
        return related;
    }

    /** Writes {@code status} when it differs from the stored one; retries once on a fresh read, as upstream. */
    private ReplicaSet updateStatus(T object, ReplicaSet view, ReplicaSetStatus status) {
        if (!ReplicaSetStatuses.changed(view, status)) {
            return view;
        }
        T current = object;
        for (int attempt = 0; ; attempt++) {
            ReplicaSetStatus toWrite = new io.fabric8.kubernetes.api.model.apps.ReplicaSetStatusBuilder(status)
                    .withObservedGeneration(current.getMetadata().getGeneration())
                    .build();
            try {
                return kind.view(client.updateStatus(current, toWrite));
            } catch (KubernetesClientException e) {
                if (attempt >= STATUS_UPDATE_RETRIES) {
                    throw e;
                }
                Optional<T> fresh = client.get(object.getMetadata().getNamespace(), object.getMetadata().getName());
                if (fresh.isEmpty()) {
                    throw e;
                }
                current = fresh.get();
            }
        }
    }

    private static LabelSelector selectorOf(ReplicaSet view) {
        try {
            return Selectors.of(view.getSpec().getSelector());
        } catch (SelectorParseException | IllegalArgumentException e) {
            return null;
        }
    }

    static int desiredReplicas(ReplicaSet view) {
        return view.getSpec().getReplicas() == null ? 1 : view.getSpec().getReplicas();
    }

    private static int minReadySeconds(ReplicaSet view) {
        return view.getSpec().getMinReadySeconds() == null ? 0 : view.getSpec().getMinReadySeconds();
    }

    private static int value(Integer count) {
        return count == null ? 0 : count;
    }

    private static Map<String, String> labels(Pod pod) {
        return pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
    }

    static boolean hasCause(KubernetesClientException e, String causeType) {
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

    /** The apiserver's own words for a failed request, as upstream's {@code err.Error()}. */
    static String message(KubernetesClientException e) {
        if (e.getStatus() != null && e.getStatus().getMessage() != null && !e.getStatus().getMessage().isEmpty()) {
            return e.getStatus().getMessage();
        }
        return e.getMessage();
    }

}
