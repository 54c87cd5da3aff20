package io.k4j.controllers.disruption;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatus;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.k4j.api.selection.LabelSelector;
import io.k4j.controllerkit.events.EventRecorder;
import io.k4j.controllerkit.informers.EnqueueHandlers;
import io.k4j.controllerkit.informers.InformerFactory;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.informers.ObjectKeys;
import io.k4j.controllerkit.manager.Controller;
import io.k4j.controllerkit.manager.ControllerContext;
import io.k4j.controllerkit.pods.OwnerReferences;
import io.k4j.controllerkit.pods.Pods;
import io.k4j.controllerkit.pods.Selectors;
import io.k4j.controllerkit.workqueue.QueueWorkers;
import io.k4j.controllerkit.workqueue.WorkQueue;
import java.net.HttpURLConnection;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps every PodDisruptionBudget's status true (upstream's disruption controller): how many pods it expects, how many
 * are healthy, how many may be disrupted now. The eviction subresource spends {@code disruptionsAllowed} and records
 * the pod in {@code disruptedPods}; this controller forgets such entries once the pod is gone or after two minutes.
 * Thread-safe.
 */
public final class DisruptionController implements Controller {
    public static final String NAME = "disruption";
    public static final String SERVICE_ACCOUNT = "disruption-controller";
    private static final Logger LOG = LoggerFactory.getLogger(NAME);
    /** Upstream's DeletionTimeout: an eviction not followed by the pod's deletion within it is forgotten. */
    static final Duration DELETION_TIMEOUT = Duration.ofMinutes(2);

    private final Lister<PodDisruptionBudget> budgets;
    private final Lister<Pod> pods;
    private final Function<Pod, Optional<Integer>> controllerScale;
    private final StatusWriter writer;
    private final EventRecorder events;
    private final InstantSource clock;
    private final WorkQueue<String> queue = WorkQueue.withDefaultRateLimiter(NAME);
    private final QueueWorkers<String> workers = new QueueWorkers<>(queue, this::sync);

    /** Writes a budget's status; the API in production, a recording fake in unit tests. */
    @FunctionalInterface
    interface StatusWriter {
        void updateStatus(PodDisruptionBudget budget, PodDisruptionBudgetStatus status);
    }

    public DisruptionController(ControllerContext context) {
        this(context.informers().lister(PodDisruptionBudget.class), context.informers().lister(Pod.class), scaleFinder(context.informers()),
                apiWriter(context.clientFor(SERVICE_ACCOUNT)), context.eventRecorder("controllermanager"), context.clock());
        context.informers().informer(PodDisruptionBudget.class).addEventHandler(EnqueueHandlers.onAddOrUpdate(budget -> queue.add(ObjectKeys.key(budget))));
        context.informers().informer(Pod.class).addEventHandler(EnqueueHandlers.onEveryChange(this::enqueueBudgetsOf));
    }

    DisruptionController(Lister<PodDisruptionBudget> budgets, Lister<Pod> pods, Function<Pod, Optional<Integer>> controllerScale,
            StatusWriter writer, EventRecorder events, InstantSource clock) {
        this.budgets = requireNonNull(budgets, "budgets is null");
        this.pods = requireNonNull(pods, "pods is null");
        this.controllerScale = requireNonNull(controllerScale, "controllerScale is null");
        this.writer = requireNonNull(writer, "writer is null");
        this.events = requireNonNull(events, "events is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    private static StatusWriter apiWriter(KubernetesClient client) {
        return (budget, status) -> {
            PodDisruptionBudget changed = new PodDisruptionBudgetBuilder(budget).withStatus(status).build();
            try {
                client.policy().v1().podDisruptionBudget().inNamespace(budget.getMetadata().getNamespace()).resource(changed).updateStatus();
            } catch (KubernetesClientException e) {
                // Gone, or changed meanwhile (an eviction spent a disruption): the change requeues the budget.
                if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND && e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                    throw e;
                }
            }
        };
    }

    /**
     * The replicas a pod's controller asks for, as upstream's finders: ReplicationController, ReplicaSet (or the
     * Deployment that controls it) and StatefulSet.
     */
    private static Function<Pod, Optional<Integer>> scaleFinder(InformerFactory informers) {
        Lister<ReplicationController> replicationControllers = informers.lister(ReplicationController.class);
        Lister<ReplicaSet> replicaSets = informers.lister(ReplicaSet.class);
        Lister<Deployment> deployments = informers.lister(Deployment.class);
        Lister<StatefulSet> statefulSets = informers.lister(StatefulSet.class);
        return pod -> {
            Optional<OwnerReference> owner = OwnerReferences.controllerOf(pod);
            if (owner.isEmpty()) {
                return Optional.empty();
            }
            String namespace = pod.getMetadata().getNamespace();
            String name = owner.get().getName();
            return switch (owner.get().getKind()) {
                case "ReplicationController" -> replicationControllers.get(namespace, name)
                        .filter(found -> found.getMetadata().getUid().equals(owner.get().getUid()))
                        .map(found -> replicas(found.getSpec().getReplicas()));
                case "StatefulSet" -> statefulSets.get(namespace, name)
                        .filter(found -> found.getMetadata().getUid().equals(owner.get().getUid()))
                        .map(found -> replicas(found.getSpec().getReplicas()));
                case "ReplicaSet" -> replicaSets.get(namespace, name)
                        .filter(found -> found.getMetadata().getUid().equals(owner.get().getUid()))
                        .map(replicaSet -> OwnerReferences.controllerOf(replicaSet)
                                .filter(reference -> reference.getKind().equals("Deployment"))
                                .flatMap(reference -> deployments.get(namespace, reference.getName())
                                        .filter(found -> found.getMetadata().getUid().equals(reference.getUid()))
                                        .map(deployment -> replicas(deployment.getSpec().getReplicas())))
                                .orElse(replicas(replicaSet.getSpec().getReplicas())));
                default -> Optional.empty();
            };
        };
    }

    private static int replicas(Integer replicas) {
        return replicas == null ? 1 : replicas;
    }

    private void enqueueBudgetsOf(Pod pod) {
        Map<String, String> labels = pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
        for (PodDisruptionBudget budget : budgets.list(pod.getMetadata().getNamespace())) {
            if (selector(budget).matches(labels)) {
                queue.add(ObjectKeys.key(budget));
            }
        }
    }

    /** policy/v1: an empty selector selects every pod of the namespace; a null one none. */
    private static LabelSelector selector(PodDisruptionBudget budget) {
        try {
            return Selectors.of(budget.getSpec() == null ? null : budget.getSpec().getSelector());
        } catch (RuntimeException e) {
            return LabelSelector.nothing();
        }
    }

    @Override
    public void start(int workerCount) {
        workers.start(workerCount);
    }

    void sync(String key) {
        Optional<PodDisruptionBudget> found = budgets.getByKey(key);
        if (found.isEmpty()) {
            return;
        }
        PodDisruptionBudget budget = found.get();
        Instant now = clock.instant();
        List<Pod> selected = new ArrayList<>();
        LabelSelector selector = selector(budget);
        for (Pod pod : pods.list(budget.getMetadata().getNamespace())) {
            Map<String, String> labels = pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
            if (selector.matches(labels)) {
                selected.add(pod);
            }
        }
        PodDisruptionBudgetStatus old = budget.getStatus() == null ? new PodDisruptionBudgetStatus() : budget.getStatus();
        Map<String, String> disrupted = activeDisruptions(old.getDisruptedPods(), selected, now);
        int expectedCount;
        int desiredHealthy;
        try {
            if (DisruptionBudgets.needsControllerScale(budget.getSpec().getMinAvailable(), budget.getSpec().getMaxUnavailable())) {
                expectedCount = expectedFromControllers(selected);
            } else {
                expectedCount = selected.size();
            }
            desiredHealthy = DisruptionBudgets.desiredHealthy(budget.getSpec().getMinAvailable(), budget.getSpec().getMaxUnavailable(), expectedCount);
        } catch (IllegalArgumentException e) {
            events.event(budget, EventRecorder.WARNING, "CalculateExpectedPodCountFailed", "Failed to calculate the number of expected pods: " + e.getMessage());
            writeIfChanged(budget, old, status(old, budget, 0, 0, 0, disrupted, now, false, "SyncFailed", e.getMessage()));
            return;
        }
        int currentHealthy = 0;
        for (Pod pod : selected) {
            if (pod.getMetadata().getDeletionTimestamp() == null && !disrupted.containsKey(pod.getMetadata().getName()) && Pods.isReady(pod)) {
                currentHealthy++;
            }
        }
        PodDisruptionBudgetStatus status = status(old, budget, expectedCount, desiredHealthy, currentHealthy, disrupted, now, true, null, null);
        writeIfChanged(budget, old, status);
        // Recorded evictions expire; look again when the oldest would.
        disrupted.values().stream().map(Instant::parse).min(Instant::compareTo)
                .ifPresent(oldest -> queue.addAfter(key, Duration.between(now, oldest.plus(DELETION_TIMEOUT)).plusSeconds(1)));
    }

    private int expectedFromControllers(List<Pod> selected) {
        Map<String, Integer> scaleByController = new LinkedHashMap<>();
        for (Pod pod : selected) {
            Optional<OwnerReference> owner = OwnerReferences.controllerOf(pod);
            Optional<Integer> scale = controllerScale.apply(pod);
            if (owner.isEmpty() || scale.isEmpty()) {
                throw new IllegalArgumentException("found no controllers for pod \"" + pod.getMetadata().getName() + "\"");
            }
            scaleByController.put(owner.get().getUid(), scale.get());
        }
        return scaleByController.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** Keeps evictions whose pod still exists, is not yet being deleted and that are younger than the timeout. */
    private static Map<String, String> activeDisruptions(Map<String, String> recorded, List<Pod> selected, Instant now) {
        Map<String, String> active = new HashMap<>();
        if (recorded == null) {
            return active;
        }
        Map<String, Pod> byName = new HashMap<>();
        selected.forEach(pod -> byName.put(pod.getMetadata().getName(), pod));
        recorded.forEach((name, time) -> {
            Pod pod = byName.get(name);
            if (pod == null || pod.getMetadata().getDeletionTimestamp() != null) {
                return;
            }
            if (Instant.parse(time).plus(DELETION_TIMEOUT).isAfter(now)) {
                active.put(name, time);
            }
        });
        return active;
    }

    private static PodDisruptionBudgetStatus status(PodDisruptionBudgetStatus old, PodDisruptionBudget budget, int expectedCount, int desiredHealthy,
            int currentHealthy, Map<String, String> disrupted, Instant now, boolean synced, String failureReason, String failureMessage) {
        int allowed = synced ? Math.max(0, currentHealthy - desiredHealthy) : 0;
        String reason = !synced ? failureReason : allowed > 0 ? "SufficientPods" : "InsufficientPods";
        String message = failureMessage == null ? "" : failureMessage;
        String conditionStatus = allowed > 0 ? "True" : "False";
        Condition previous = old.getConditions() == null ? null
                : old.getConditions().stream().filter(condition -> "DisruptionAllowed".equals(condition.getType())).findFirst().orElse(null);
        String transition = previous != null && conditionStatus.equals(previous.getStatus()) && previous.getLastTransitionTime() != null
                ? previous.getLastTransitionTime()
                : DateTimeFormatter.ISO_INSTANT.format(now.truncatedTo(ChronoUnit.SECONDS));
        Condition condition = new ConditionBuilder().withType("DisruptionAllowed").withStatus(conditionStatus).withReason(reason).withMessage(message)
                .withObservedGeneration(budget.getMetadata().getGeneration()).withLastTransitionTime(transition).build();
        return new PodDisruptionBudgetStatusBuilder()
                .withObservedGeneration(budget.getMetadata().getGeneration())
                .withExpectedPods(expectedCount)
                .withDesiredHealthy(desiredHealthy)
                .withCurrentHealthy(currentHealthy)
                .withDisruptionsAllowed(allowed)
                .withDisruptedPods(disrupted.isEmpty() ? null : disrupted)
                .withConditions(condition)
                .build();
    }

    private void writeIfChanged(PodDisruptionBudget budget, PodDisruptionBudgetStatus old, PodDisruptionBudgetStatus status) {
        if (normalized(old).equals(normalized(status))) {
            return;
        }
        writer.updateStatus(budget, status);
        LOG.debug("budget {}: {} of {} healthy, {} disruptions allowed", ObjectKeys.key(budget), status.getCurrentHealthy(),
                status.getExpectedPods(), status.getDisruptionsAllowed());
    }

    /** Compares statuses ignoring an empty-versus-absent disruptedPods map. */
    private static PodDisruptionBudgetStatus normalized(PodDisruptionBudgetStatus status) {
        PodDisruptionBudgetStatus copy = new PodDisruptionBudgetStatusBuilder(status).build();
        if (copy.getDisruptedPods() != null && copy.getDisruptedPods().isEmpty()) {
            copy.setDisruptedPods(null);
        }
        return copy;
    }

    @Override
    public void close() {
        workers.close();
    }
}
