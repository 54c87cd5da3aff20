package io.k4j.controllers.daemonset;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.k4j.api.selection.LabelSelector;
import io.k4j.controllerkit.events.EventRecorder;
import io.k4j.controllerkit.expectations.ControllerExpectations;
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
import io.k4j.controllers.history.ControllerHistory;
import io.k4j.controllers.history.RevisionStore;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Runs one pod of a DaemonSet on every eligible node, as upstream's {@code pkg/controller/daemon}: eligibility from
 * nodeSelector, required node affinity and taints (with the automatic daemon tolerations), pods pinned to their node
 * by a {@code metadata.name} matchFields affinity so the default scheduler binds them, RollingUpdate with maxUnavailable
 * and maxSurge or OnDelete, ControllerRevisions as history, and the DaemonSet status counters. Thread-safe.
 */
public final class DaemonSetController implements Controller {
    public static final String NAME = "daemonset";
    public static final String SERVICE_ACCOUNT = "daemon-set-controller";
    /** Upstream's {@code --concurrent-daemonset-syncs} default. */
    public static final int DEFAULT_WORKERS = 2;
    static final int DEFAULT_REVISION_HISTORY_LIMIT = 10;

    private final Lister<DaemonSet> daemonSets;
    private final Lister<Pod> pods;
    private final Lister<Node> nodes;
    private final ControllerHistory history;
    private final PodControl podControl;
    private final UnaryOperator<DaemonSet> statusWriter;
    private final EventRecorder events;
    private final InstantSource clock;
    private final ControllerExpectations expectations;
    private final WorkQueue<String> queue = WorkQueue.withDefaultRateLimiter(NAME);
    private final QueueWorkers<String> workers = QueueWorkers.requeuingAfter(queue, this::sync);

    public DaemonSetController(ControllerContext context) {
        this(context.informers().lister(DaemonSet.class), context.informers().lister(Pod.class), context.informers().lister(Node.class),
                new ControllerHistory(RevisionStore.api(context.clientFor(SERVICE_ACCOUNT)), context.informers().lister(ControllerRevision.class)),
                new ApiPodControl(context.clientFor(SERVICE_ACCOUNT), context.eventRecorder(SERVICE_ACCOUNT)),
                statusWriter(context.clientFor(SERVICE_ACCOUNT)), context.eventRecorder(SERVICE_ACCOUNT), context.clock());
        context.informers().informer(DaemonSet.class).addEventHandler(EnqueueHandlers.onEveryChange(this::enqueue));
        context.informers().informer(ControllerRevision.class).addEventHandler(EnqueueHandlers.onEveryChange(this::enqueueOwner));
        context.informers().informer(Node.class).addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Node node) {
                enqueueAll();
            }

            @Override
            public void onUpdate(Node oldNode, Node newNode) {
                if (affectsDaemonPods(oldNode, newNode)) {
                    enqueueAll();
                }
            }

            @Override
            public void onDelete(Node node, boolean deletedFinalStateUnknown) {
                enqueueAll();
            }
        });
        context.informers().informer(Pod.class).addEventHandler(EnqueueHandlers.of(this::podAdded, this::podUpdated, this::podDeleted));
    }

    void podAdded(Pod pod) {
        ownerKey(pod).ifPresent(key -> {
            expectations.creationObserved(key);
            queue.add(key);
        });
    }

    void podUpdated(Pod oldPod, Pod newPod) {
        enqueueOwner(newPod);
        if (!Objects.equals(ownerKey(oldPod), ownerKey(newPod))) {
            enqueueOwner(oldPod);
        }
    }

    void podDeleted(Pod pod) {
        ownerKey(pod).ifPresent(key -> {
            expectations.deletionObserved(key);
            queue.add(key);
        });
    }

    DaemonSetController(Lister<DaemonSet> daemonSets, Lister<Pod> pods, Lister<Node> nodes, ControllerHistory history, PodControl podControl,
            UnaryOperator<DaemonSet> statusWriter, EventRecorder events, InstantSource clock) {
        this.daemonSets = requireNonNull(daemonSets, "daemonSets is null");
        this.pods = requireNonNull(pods, "pods is null");
        this.nodes = requireNonNull(nodes, "nodes is null");
        this.history = requireNonNull(history, "history is null");
        this.podControl = requireNonNull(podControl, "podControl is null");
        this.statusWriter = requireNonNull(statusWriter, "statusWriter is null");
        this.events = requireNonNull(events, "events is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.expectations = new ControllerExpectations(clock);
    }

    private static UnaryOperator<DaemonSet> statusWriter(KubernetesClient client) {
        return daemonSet -> client.apps().daemonSets().inNamespace(daemonSet.getMetadata().getNamespace()).resource(daemonSet).updateStatus();
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
     * Heartbeats change a node every few seconds; only labels, taints and condition statuses can change where daemon
     * pods belong (upstream's {@code shouldIgnoreNodeUpdate}).
     */
    static boolean affectsDaemonPods(Node oldNode, Node newNode) {
        if (!Objects.equals(oldNode.getMetadata().getLabels(), newNode.getMetadata().getLabels())
                || !Objects.equals(oldNode.getSpec(), newNode.getSpec())) {
            return true;
        }
        return !Objects.equals(conditionStatuses(oldNode), conditionStatuses(newNode));
    }

    private static Map<String, String> conditionStatuses(Node node) {
        Map<String, String> statuses = new HashMap<>();
        if (node.getStatus() != null && node.getStatus().getConditions() != null) {
            node.getStatus().getConditions().forEach(condition -> statuses.put(condition.getType(), condition.getStatus()));
        }
        return statuses;
    }

    private void enqueue(DaemonSet daemonSet) {
        queue.add(ObjectKeys.key(daemonSet));
    }

    private void enqueueAll() {
        daemonSets.list().forEach(this::enqueue);
    }

    private void enqueueOwner(HasMetadata object) {
        ownerKey(object).ifPresent(queue::add);
    }

    private static Optional<String> ownerKey(HasMetadata object) {
        return OwnerReferences.controllerKey(object, "DaemonSet");
    }

    /**
     * Reconciles one DaemonSet.
     *
     * @return when to look again although nothing changes (a pod becoming available after minReadySeconds)
     */
    Optional<Duration> sync(String key) {
        Optional<DaemonSet> cached = daemonSets.getByKey(key);
        if (cached.isEmpty()) {
            expectations.deleteExpectations(key);
            return Optional.empty();
        }
        DaemonSet daemonSet = new DaemonSetBuilder(cached.get()).build();
        if (daemonSet.getStatus() == null) {
            daemonSet.setStatus(new DaemonSetStatus());
        }
        LabelSelector selector = Selectors.of(daemonSet.getSpec().getSelector());
        List<Node> allNodes = nodes.list();
        if (daemonSet.getMetadata().getDeletionTimestamp() != null) {
            return Optional.empty();
        }
        int[] collisionCount = {daemonSet.getStatus().getCollisionCount() == null ? 0 : daemonSet.getStatus().getCollisionCount()};
        List<ControllerRevision> revisions = history.list(daemonSet, "apps/v1", "DaemonSet", selector);
        ControllerRevision current = currentRevision(daemonSet, revisions, collisionCount);
        String hash = ControllerHistory.hashLabel(current).orElseThrow();
        Map<String, List<Pod>> podsByNode = podsByNode(daemonSet, selector);
        if (expectations.satisfiedExpectations(key)) {
            manage(key, daemonSet, allNodes, podsByNode, hash);
            String strategy = daemonSet.getSpec().getUpdateStrategy() == null ? "RollingUpdate" : daemonSet.getSpec().getUpdateStrategy().getType();
            if (!"OnDelete".equals(strategy)) {
                rollingUpdate(key, daemonSet, allNodes, podsByNode, hash);
            }
            cleanupHistory(daemonSet, revisions, current, podsByNode);
        }
        if (collisionCount[0] > 0) {
            daemonSet.getStatus().setCollisionCount(collisionCount[0]);
        }
        return updateStatus(cached.get(), daemonSet, allNodes, podsByNode, hash);
    }

    private ControllerRevision currentRevision(DaemonSet daemonSet, List<ControllerRevision> revisions, int[] collisionCount) {
        long next = ControllerHistory.nextRevision(revisions);
        ControllerRevision wanted = ControllerHistory.newRevision(daemonSet, "apps/v1", "DaemonSet", daemonSet.getSpec().getTemplate(), next, collisionCount[0]);
        List<ControllerRevision> equal = ControllerHistory.findEqual(revisions, wanted);
        if (equal.isEmpty()) {
            return history.create(daemonSet, "apps/v1", "DaemonSet", daemonSet.getSpec().getTemplate(), next, collisionCount);
        }
        ControllerRevision newest = equal.get(equal.size() - 1);
        // Duplicates of the same template are pointless; keep the newest.
        for (ControllerRevision duplicate : equal.subList(0, equal.size() - 1)) {
            history.delete(duplicate);
        }
        long highest = next - 1;
        if (!Objects.equals(newest.getRevision(), highest)) {
            // Rolling back to an older template makes its revision the newest, as upstream does.
            return history.updateRevision(newest, next);
        }
        return newest;
    }

    private Map<String, List<Pod>> podsByNode(DaemonSet daemonSet, LabelSelector selector) {
        String uid = daemonSet.getMetadata().getUid();
        List<Pod> candidates = pods.list(daemonSet.getMetadata().getNamespace()).stream()
                .filter(pod -> OwnerReferences.isControlledBy(pod, uid) || selector.matches(labels(pod)))
                .toList();
        ControllerRefManager<Pod> manager = new ControllerRefManager<>(daemonSet, OwnerReferences.newControllerRef(daemonSet, "apps/v1", "DaemonSet"), selector,
                () -> daemonSet.getMetadata().getDeletionTimestamp() == null, podControl::patchPod);
        Map<String, List<Pod>> byNode = new HashMap<>();
        for (Pod pod : manager.claim(candidates)) {
            DaemonPods.targetNode(pod).ifPresent(node -> byNode.computeIfAbsent(node, ignored -> new ArrayList<>()).add(pod));
        }
        return byNode;
    }

    private void manage(String key, DaemonSet daemonSet, List<Node> allNodes, Map<String, List<Pod>> podsByNode, String hash) {
        List<String> nodesNeedingPods = new ArrayList<>();
        List<Pod> podsToDelete = new ArrayList<>();
        Set<String> nodeNames = new HashSet<>();
        boolean surge = maxSurge(daemonSet, 1) > 0;
        for (Node node : allNodes) {
            String nodeName = node.getMetadata().getName();
            nodeNames.add(nodeName);
            DaemonPods.Eligibility eligibility = DaemonPods.eligibility(daemonSet.getSpec().getTemplate().getSpec(), node);
            List<Pod> onNode = podsByNode.getOrDefault(nodeName, List.of());
            if (eligibility.shouldRun() && onNode.isEmpty()) {
                nodesNeedingPods.add(nodeName);
            } else if (eligibility.shouldContinueRunning()) {
                List<Pod> running = new ArrayList<>();
                for (Pod pod : onNode) {
                    if (Pods.isTerminating(pod)) {
                        continue;
                    }
                    if ("Failed".equals(Pods.phase(pod))) {
                        events.event(daemonSet, EventRecorder.WARNING, "FailedDaemonPod",
                                "Found failed daemon pod " + pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName() + " on node " + nodeName + ", will try to kill it");
                        podsToDelete.add(pod);
                    } else {
                        running.add(pod);
                    }
                }
                if (running.isEmpty() && eligibility.shouldRun() && onNode.stream().noneMatch(Pods::isTerminating)) {
                    nodesNeedingPods.add(nodeName);
                }
                podsToDelete.addAll(excessPods(running, hash, surge));
            } else {
                onNode.stream().filter(pod -> !Pods.isTerminating(pod)).forEach(podsToDelete::add);
            }
        }
        // Pods meant for nodes that no longer exist are deleted too.
        podsByNode.forEach((nodeName, onNode) -> {
            if (!nodeNames.contains(nodeName)) {
                onNode.stream().filter(pod -> !Pods.isTerminating(pod)).forEach(podsToDelete::add);
            }
        });
        syncNodes(key, daemonSet, podsToDelete, nodesNeedingPods, hash, true);
    }

    /** With several pods on one node, keep the oldest (and, while surging, the newest updated one). */
    private static List<Pod> excessPods(List<Pod> running, String hash, boolean surge) {
        if (running.size() <= 1) {
            return List.of();
        }
        List<Pod> sorted = new ArrayList<>(running);
        sorted.sort(Comparator.comparing((Pod pod) -> Objects.toString(pod.getMetadata().getCreationTimestamp(), "")));
        List<Pod> keep = new ArrayList<>();
        if (surge) {
            sorted.stream().filter(pod -> !hash.equals(labels(pod).get(ControllerHistory.CONTROLLER_REVISION_HASH_LABEL))).findFirst().ifPresent(keep::add);
            sorted.stream().filter(pod -> hash.equals(labels(pod).get(ControllerHistory.CONTROLLER_REVISION_HASH_LABEL))).reduce((first, second) -> second)
                    .ifPresent(keep::add);
        } else {
            keep.add(sorted.get(0));
        }
        return sorted.stream().filter(pod -> !keep.contains(pod)).toList();
    }

    private void syncNodes(String key, DaemonSet daemonSet, List<Pod> podsToDelete, List<String> nodesNeedingPods, String hash, boolean firstInSync) {
        // The rolling update acts in the same sync as the node sync before it: add to its expectations, not replace them.
        if (firstInSync) {
            expectations.setExpectations(key, nodesNeedingPods.size(), podsToDelete.size());
        } else {
            expectations.raiseExpectations(key, nodesNeedingPods.size(), podsToDelete.size());
        }
        RuntimeException failure = null;
        OwnerReference reference = OwnerReferences.newControllerRef(daemonSet, "apps/v1", "DaemonSet");
        int batch = 1;
        int position = 0;
        while (position < nodesNeedingPods.size() && failure == null) {
            int end = Math.min(nodesNeedingPods.size(), position + batch);
            for (String nodeName : nodesNeedingPods.subList(position, end)) {
                try {
                    podControl.createPod(daemonSet.getMetadata().getNamespace(), podFor(daemonSet, reference, nodeName, hash), daemonSet);
                } catch (KubernetesClientException e) {
                    expectations.creationObserved(key);
                    failure = e;
                }
            }
            position = end;
            batch *= 2;
        }
        // Creations never started do not come back as events.
        for (int skipped = position; skipped < nodesNeedingPods.size(); skipped++) {
            expectations.creationObserved(key);
        }
        for (Pod pod : podsToDelete) {
            try {
                podControl.deletePod(pod.getMetadata().getNamespace(), pod.getMetadata().getName(), daemonSet);
            } catch (KubernetesClientException e) {
                expectations.deletionObserved(key);
                failure = e;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    static Pod podFor(DaemonSet daemonSet, OwnerReference reference, String nodeName, String hash) {
        PodTemplateSpec template = new PodTemplateSpecBuilder(daemonSet.getSpec().getTemplate()).build();
        Map<String, String> templateLabels = template.getMetadata() == null || template.getMetadata().getLabels() == null ? new HashMap<>()
                : new HashMap<>(template.getMetadata().getLabels());
        templateLabels.put(ControllerHistory.CONTROLLER_REVISION_HASH_LABEL, hash);
        template.getMetadata().setLabels(templateLabels);
        template.getSpec().setTolerations(DaemonPods.addDaemonTolerations(template.getSpec().getTolerations(), Boolean.TRUE.equals(template.getSpec().getHostNetwork())));
        template.getSpec().setAffinity(DaemonPods.withNodeNameAffinity(template.getSpec().getAffinity(), nodeName));
        return ApiPodControl.podFromTemplate(template, daemonSet, reference);
    }

    private void rollingUpdate(String key, DaemonSet daemonSet, List<Node> allNodes, Map<String, List<Pod>> podsByNode, String hash) {
        int desired = (int) allNodes.stream().filter(node -> DaemonPods.eligibility(daemonSet.getSpec().getTemplate().getSpec(), node).shouldRun()).count();
        int maxSurge = maxSurge(daemonSet, desired);
        int maxUnavailable = maxUnavailable(daemonSet, desired);
        if (maxSurge == 0 && maxUnavailable == 0) {
            maxUnavailable = 1;
        }
        int minReadySeconds = minReadySeconds(daemonSet);
        Instant now = clock.instant();
        List<Pod> toDelete = new ArrayList<>();
        List<String> toCreate = new ArrayList<>();
        if (maxSurge == 0) {
            int unavailable = 0;
            List<Pod> allowed = new ArrayList<>();
            List<Pod> candidates = new ArrayList<>();
            for (Node node : allNodes) {
                if (!DaemonPods.eligibility(daemonSet.getSpec().getTemplate().getSpec(), node).shouldRun()) {
                    continue;
                }
                Optional<Pod> newPod = podsOf(podsByNode, node, hash, true);
                Optional<Pod> oldPod = podsOf(podsByNode, node, hash, false);
                if (newPod.isPresent()) {
                    if (!Pods.isAvailable(newPod.get(), minReadySeconds, now)) {
                        unavailable++;
                    }
                } else if (oldPod.isEmpty()) {
                    unavailable++;
                } else if (!Pods.isAvailable(oldPod.get(), minReadySeconds, now)) {
                    // An old pod that is not available anyway can be replaced without reducing availability.
                    allowed.add(oldPod.get());
                } else {
                    candidates.add(oldPod.get());
                }
            }
            int remaining = Math.max(0, maxUnavailable - unavailable - allowed.size());
            toDelete.addAll(allowed);
            toDelete.addAll(candidates.subList(0, Math.min(remaining, candidates.size())));
        } else {
            int surging = 0;
            List<String> allowedNodes = new ArrayList<>();
            List<String> candidateNodes = new ArrayList<>();
            for (Node node : allNodes) {
                if (!DaemonPods.eligibility(daemonSet.getSpec().getTemplate().getSpec(), node).shouldRun()) {
                    continue;
                }
                Optional<Pod> newPod = podsOf(podsByNode, node, hash, true);
                Optional<Pod> oldPod = podsOf(podsByNode, node, hash, false);
                if (oldPod.isEmpty()) {
                    continue;
                }
                if (newPod.isEmpty()) {
                    if (!Pods.isAvailable(oldPod.get(), minReadySeconds, now)) {
                        allowedNodes.add(node.getMetadata().getName());
                    } else {
                        candidateNodes.add(node.getMetadata().getName());
                    }
                } else if (Pods.isAvailable(newPod.get(), minReadySeconds, now)) {
                    toDelete.add(oldPod.get());
                } else {
                    surging++;
                }
            }
            int remaining = Math.max(0, maxSurge - surging);
            toCreate.addAll(allowedNodes);
            toCreate.addAll(candidateNodes.subList(0, Math.min(remaining, candidateNodes.size())));
        }
        if (!toDelete.isEmpty() || !toCreate.isEmpty()) {
            syncNodes(key, daemonSet, toDelete, toCreate, hash, false);
        }
    }

    private static Optional<Pod> podsOf(Map<String, List<Pod>> podsByNode, Node node, String hash, boolean updated) {
        return podsByNode.getOrDefault(node.getMetadata().getName(), List.of()).stream()
                .filter(pod -> !Pods.isTerminating(pod) && !"Failed".equals(Pods.phase(pod)))
                .filter(pod -> hash.equals(labels(pod).get(ControllerHistory.CONTROLLER_REVISION_HASH_LABEL)) == updated)
                .findFirst();
    }

    private void cleanupHistory(DaemonSet daemonSet, List<ControllerRevision> revisions, ControllerRevision current, Map<String, List<Pod>> podsByNode) {
        int limit = daemonSet.getSpec().getRevisionHistoryLimit() == null ? DEFAULT_REVISION_HISTORY_LIMIT : daemonSet.getSpec().getRevisionHistoryLimit();
        Set<String> liveHashes = new HashSet<>();
        podsByNode.values().forEach(list -> list.forEach(pod -> ControllerHistory.hashLabel(pod).ifPresent(liveHashes::add)));
        List<ControllerRevision> old = revisions.stream()
                .filter(revision -> !revision.getMetadata().getName().equals(current.getMetadata().getName()))
                .filter(revision -> !ControllerHistory.hashLabel(revision).map(liveHashes::contains).orElse(false))
                .sorted(ControllerHistory.BY_REVISION)
                .toList();
        for (int index = 0; index < old.size() - limit; index++) {
            history.delete(old.get(index));
        }
    }

    private Optional<Duration> updateStatus(DaemonSet original, DaemonSet daemonSet, List<Node> allNodes, Map<String, List<Pod>> podsByNode, String hash) {
        int desired = 0;
        int currentScheduled = 0;
        int misscheduled = 0;
        int ready = 0;
        int available = 0;
        int updated = 0;
        int minReadySeconds = minReadySeconds(daemonSet);
        Instant now = clock.instant();
        Optional<Duration> requeue = Optional.empty();
        for (Node node : allNodes) {
            DaemonPods.Eligibility eligibility = DaemonPods.eligibility(daemonSet.getSpec().getTemplate().getSpec(), node);
            List<Pod> onNode = podsByNode.getOrDefault(node.getMetadata().getName(), List.of()).stream().filter(pod -> !Pods.isTerminating(pod)).toList();
            if (eligibility.shouldRun()) {
                desired++;
                if (!onNode.isEmpty()) {
                    currentScheduled++;
                    Pod pod = onNode.stream().min(Comparator.comparing((Pod candidate) -> Objects.toString(candidate.getMetadata().getCreationTimestamp(), ""))).orElseThrow();
                    if (Pods.isReady(pod)) {
                        ready++;
                        if (Pods.isAvailable(pod, minReadySeconds, now)) {
                            available++;
                        } else if (minReadySeconds > 0) {
                            requeue = Optional.of(Duration.ofSeconds(minReadySeconds));
                        }
                    }
                    if (onNode.stream().anyMatch(candidate -> hash.equals(labels(candidate).get(ControllerHistory.CONTROLLER_REVISION_HASH_LABEL)))) {
                        updated++;
                    }
                }
            } else if (!onNode.isEmpty()) {
                misscheduled++;
            }
        }
        DaemonSetStatus status = daemonSet.getStatus();
        status.setDesiredNumberScheduled(desired);
        status.setCurrentNumberScheduled(currentScheduled);
        status.setNumberMisscheduled(misscheduled);
        status.setNumberReady(ready);
        status.setNumberAvailable(available);
        status.setNumberUnavailable(Math.max(0, desired - available));
        status.setUpdatedNumberScheduled(updated);
        status.setObservedGeneration(daemonSet.getMetadata().getGeneration());
        if (!Objects.equals(original.getStatus() == null ? null : original.getStatus().toString(), status.toString())) {
            statusWriter.apply(daemonSet);
        }
        return requeue;
    }

    private static int minReadySeconds(DaemonSet daemonSet) {
        return daemonSet.getSpec().getMinReadySeconds() == null ? 0 : daemonSet.getSpec().getMinReadySeconds();
    }

    private static int maxSurge(DaemonSet daemonSet, int desired) {
        if (daemonSet.getSpec().getUpdateStrategy() == null || daemonSet.getSpec().getUpdateStrategy().getRollingUpdate() == null) {
            return 0;
        }
        return scaled(daemonSet.getSpec().getUpdateStrategy().getRollingUpdate().getMaxSurge(), desired, 0);
    }

    private static int maxUnavailable(DaemonSet daemonSet, int desired) {
        if (daemonSet.getSpec().getUpdateStrategy() == null || daemonSet.getSpec().getUpdateStrategy().getRollingUpdate() == null) {
            return 1;
        }
        return scaled(daemonSet.getSpec().getUpdateStrategy().getRollingUpdate().getMaxUnavailable(), desired, 1);
    }

    /** An int-or-percent against {@code total}, percentages rounded up as upstream does for DaemonSets. */
    static int scaled(IntOrString value, int total, int fallback) {
        if (value == null) {
            return fallback;
        }
        if (value.getIntVal() != null) {
            return value.getIntVal();
        }
        String text = value.getStrVal();
        if (text == null || !text.endsWith("%")) {
            return fallback;
        }
        int percent = Integer.parseInt(text.substring(0, text.length() - 1));
        return (int) Math.ceil(percent * total / 100.0);
    }

    private static Map<String, String> labels(HasMetadata object) {
        return object.getMetadata().getLabels() == null ? Map.of() : object.getMetadata().getLabels();
    }
}
