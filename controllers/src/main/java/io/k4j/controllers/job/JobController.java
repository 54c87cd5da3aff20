package io.k4j.controllers.job;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatus;
import io.fabric8.kubernetes.api.model.batch.v1.SuccessPolicyRule;
import io.fabric8.kubernetes.api.model.batch.v1.UncountedTerminatedPods;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.k4j.api.selection.LabelSelector;
import io.k4j.controllerkit.events.EventRecorder;
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
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs Jobs to completion, as upstream's {@code pkg/controller/job}: creates pods up to {@code parallelism} until
 * {@code completions} succeeded (NonIndexed, or one per index for Indexed jobs, or a {@code successPolicy} rule
 * matched), recreates failed pods with
 * exponential backoff until {@code backoffLimit} (or per index until {@code backoffLimitPerIndex}), enforces
 * {@code activeDeadlineSeconds} and {@code podFailurePolicy},
 * honours {@code suspend}, and counts finished pods exactly once through the {@code batch.kubernetes.io/job-tracking}
 * finalizer and {@code status.uncountedTerminatedPods}. Terminal conditions are delayed as in 1.32: first
 * {@code FailureTarget}/{@code SuccessCriteriaMet}, then {@code Failed}/{@code Complete} once no pod is left running.
 * Thread-safe.
 */
public final class JobController implements Controller {
    public static final String NAME = "job";
    public static final String SERVICE_ACCOUNT = "job-controller";
    /** Upstream's {@code --concurrent-job-syncs} default. */
    public static final int DEFAULT_WORKERS = 5;

    static final String TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking";
    static final String COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index";
    static final String COMPLETION_INDEX_ENV = "JOB_COMPLETION_INDEX";
    static final String INDEX_FAILURE_COUNT = "batch.kubernetes.io/job-index-failure-count";
    static final String MANAGED_BY_CONTROLLER = "kubernetes.io/job-controller";
    static final Duration DEFAULT_BACKOFF = Duration.ofSeconds(10);
    static final Duration MAX_BACKOFF = Duration.ofMinutes(6);

    private static final Logger LOG = LoggerFactory.getLogger(JobController.class);
    private static final String TRUE = "True";

    private final Lister<Job> jobs;
    private final Lister<Pod> pods;
    private final JobWriter writer;
    private final PodControl podControl;
    private final EventRecorder events;
    private final InstantSource clock;
    private final UidTrackingControllerExpectations expectations;
    /** Pods (by uid) whose finalizer this controller removed and whose update the cache has not shown yet, per job key. */
    private final ConcurrentMap<String, Set<String>> finalizerRemovals = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, BackoffRecord> backoffs = new ConcurrentHashMap<>();
    private final WorkQueue<String> queue = WorkQueue.withDefaultRateLimiter(NAME);
    private final QueueWorkers<String> workers = QueueWorkers.requeuingAfter(queue, this::syncJob);

    /** Failures since the last success and when the last one happened: upstream's {@code backoffRecord}. */
    record BackoffRecord(int failuresAfterLastSuccess, Optional<Instant> lastFailureTime) {
        BackoffRecord {
            requireNonNull(lastFailureTime, "lastFailureTime is null");
        }
    }

    public JobController(ControllerContext context) {
        this(context.informers().lister(Job.class), context.informers().lister(Pod.class),
                new ApiJobWriter(context.clientFor(SERVICE_ACCOUNT)),
                new ApiPodControl(context.clientFor(SERVICE_ACCOUNT), context.eventRecorder(SERVICE_ACCOUNT)),
                context.eventRecorder(SERVICE_ACCOUNT), context.clock());
        context.informers().informer(Job.class).addEventHandler(EnqueueHandlers.onEveryChange(this::enqueue));
        context.informers().informer(Pod.class).addEventHandler(EnqueueHandlers.of(this::podAdded, this::podUpdated, this::podDeleted));
    }

    JobController(Lister<Job> jobs, Lister<Pod> pods, JobWriter writer, PodControl podControl, EventRecorder events, InstantSource clock) {
        this.jobs = requireNonNull(jobs, "jobs is null");
        this.pods = requireNonNull(pods, "pods is null");
        this.writer = requireNonNull(writer, "writer is null");
        this.podControl = requireNonNull(podControl, "podControl is null");
        this.events = requireNonNull(events, "events is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.expectations = new UidTrackingControllerExpectations(clock);
    }

    @Override
    public void start(int workerCount) {
        workers.start(workerCount);
    }

    @Override
    public void close() {
        workers.close();
    }

    private void enqueue(Job job) {
        queue.add(ObjectKeys.key(job));
    }

    private Optional<String> jobKeyOf(Pod pod) {
        return OwnerReferences.controllerOf(pod)
                .filter(reference -> "Job".equals(reference.getKind()) && reference.getApiVersion() != null && reference.getApiVersion().startsWith("batch/"))
                .map(reference -> ObjectKeys.key(pod.getMetadata().getNamespace(), reference.getName()));
    }

    void podAdded(Pod pod) {
        jobKeyOf(pod).ifPresent(key -> {
            expectations.creationObserved(key);
            queue.add(key);
        });
    }

    void podUpdated(Pod oldPod, Pod newPod) {
        Optional<String> oldKey = jobKeyOf(oldPod);
        Optional<String> newKey = jobKeyOf(newPod);
        newKey.ifPresent(key -> {
            if (!hasTrackingFinalizer(newPod)) {
                finalizerRemovalObserved(key, newPod.getMetadata().getUid());
            }
            if (newPod.getMetadata().getDeletionTimestamp() != null && oldPod.getMetadata().getDeletionTimestamp() == null) {
                expectations.deletionObserved(key, ObjectKeys.key(newPod));
            }
            queue.add(key);
        });
        if (oldKey.isPresent() && !oldKey.equals(newKey)) {
            queue.add(oldKey.get());
        }
    }

    void podDeleted(Pod pod) {
        jobKeyOf(pod).ifPresent(key -> {
            expectations.deletionObserved(key, ObjectKeys.key(pod));
            finalizerRemovalObserved(key, pod.getMetadata().getUid());
            queue.add(key);
        });
    }

    private void finalizerRemovalObserved(String jobKey, String podUid) {
        Set<String> pending = finalizerRemovals.get(jobKey);
        if (pending != null) {
            pending.remove(podUid);
        }
    }

    /**
     * Reconciles one job.
     *
     * @return when to look at the job again regardless of events (backoff or deadline), if ever
     */
    Optional<Duration> syncJob(String key) {
        Optional<Job> cached = jobs.getByKey(key);
        if (cached.isEmpty()) {
            expectations.deleteExpectations(key);
            backoffs.remove(key);
            // Pods of a deleted job are deleted by the garbage collector; the finalizer must not keep them forever.
            List<Pod> orphans = pods.list(ObjectKeys.namespace(key)).stream()
                    .filter(JobController::hasTrackingFinalizer)
                    .filter(pod -> jobKeyOf(pod).filter(key::equals).isPresent())
                    .toList();
            removeTrackingFinalizers(key, orphans);
            finalizerRemovals.remove(key);
            return Optional.empty();
        }
        Job job = new JobBuilder(cached.get()).build();
        String managedBy = job.getSpec().getManagedBy();
        if (managedBy != null && !MANAGED_BY_CONTROLLER.equals(managedBy)) {
            return Optional.empty();
        }
        Instant now = clock.instant();
        boolean needsSync = expectations.satisfiedExpectations(key);
        List<Pod> jobPods = claimPods(job);
        if (isFinished(job)) {
            // Pods of a finished job are not counted any more; they only must not stay blocked by the finalizer.
            removeTrackingFinalizers(key, jobPods.stream().filter(JobController::hasTrackingFinalizer).toList());
            return Optional.empty();
        }
        return new JobSync(key, job, jobPods, needsSync, now).run();
    }

    private List<Pod> claimPods(Job job) {
        LabelSelector selector = Selectors.of(job.getSpec().getSelector());
        String uid = job.getMetadata().getUid();
        List<Pod> candidates = pods.list(job.getMetadata().getNamespace()).stream()
                .filter(pod -> OwnerReferences.isControlledBy(pod, uid) || selector.matches(labels(pod)))
                .toList();
        OwnerReference reference = OwnerReferences.newControllerRef(job, "batch/v1", "Job");
        ControllerRefManager<Pod> manager = new ControllerRefManager<>(job, reference, selector, () -> writer.get(job.getMetadata().getNamespace(), job.getMetadata().getName())
                .filter(fresh -> uid.equals(fresh.getMetadata().getUid()) && fresh.getMetadata().getDeletionTimestamp() == null)
                .isPresent(), podControl::patchPod);
        return manager.claim(candidates);
    }

    /** One pass over one job; holds the values upstream keeps in its {@code syncJobCtx}. Not thread-safe. */
    private final class JobSync {
        private final String key;
        private Job job;
        private final List<Pod> jobPods;
        private final boolean needsSync;
        private final Instant now;
        private final JobStatus status;
        private final String originalStatus;
        private final boolean indexed;
        private final int parallelism;
        private final Integer completions;
        private final CompletedIndexes completedIndexes;
        /** Indexes that failed for good ({@code backoffLimitPerIndex}); empty unless the job sets it. */
        private final CompletedIndexes failedIndexes;
        private final Integer backoffLimitPerIndex;
        /** How often each index failed before, for the failure-count annotation of its next pod. */
        private final Map<Integer, Integer> indexFailures = new HashMap<>();
        private final List<Pod> ignoredFailures = new ArrayList<>();
        private List<Pod> active;
        private int terminating;
        private Optional<Duration> requeue = Optional.empty();
        private final List<Runnable> afterWrite = new ArrayList<>();

        JobSync(String key, Job job, List<Pod> jobPods, boolean needsSync, Instant now) {
            this.key = key;
            this.job = job;
            this.jobPods = jobPods;
            this.needsSync = needsSync;
            this.now = now;
            if (job.getStatus() == null) {
                job.setStatus(new JobStatus());
            }
            this.status = job.getStatus();
            if (status.getUncountedTerminatedPods() == null) {
                status.setUncountedTerminatedPods(new UncountedTerminatedPods(new ArrayList<>(), new ArrayList<>()));
            }
            status.setConditions(status.getConditions() == null ? new ArrayList<>() : new ArrayList<>(status.getConditions()));
            UncountedTerminatedPods uncounted = status.getUncountedTerminatedPods();
            uncounted.setSucceeded(uncounted.getSucceeded() == null ? new ArrayList<>() : new ArrayList<>(uncounted.getSucceeded()));
            uncounted.setFailed(uncounted.getFailed() == null ? new ArrayList<>() : new ArrayList<>(uncounted.getFailed()));
            this.originalStatus = status.toString();
            this.indexed = "Indexed".equals(job.getSpec().getCompletionMode());
            this.parallelism = job.getSpec().getParallelism() == null ? 1 : job.getSpec().getParallelism();
            this.completions = job.getSpec().getCompletions();
            this.completedIndexes = indexed ? CompletedIndexes.parse(status.getCompletedIndexes(), completions == null ? 0 : completions) : new CompletedIndexes();
            this.backoffLimitPerIndex = indexed ? job.getSpec().getBackoffLimitPerIndex() : null;
            this.failedIndexes = backoffLimitPerIndex != null ? CompletedIndexes.parse(status.getFailedIndexes(), completions == null ? 0 : completions) : new CompletedIndexes();
        }

        Optional<Duration> run() {
            Set<String> pendingRemovals = finalizerRemovals.getOrDefault(key, Set.of());
            UncountedTerminatedPods uncounted = status.getUncountedTerminatedPods();
            active = new ArrayList<>(jobPods.stream().filter(Pods::isActive).toList());
            terminating = (int) jobPods.stream().filter(pod -> Pods.isTerminating(pod) && !isTerminal(pod)).count();

            // Finished pods still holding the finalizer that no earlier sync recorded are new.
            List<Pod> newSucceeded = new ArrayList<>();
            List<Pod> newFailed = new ArrayList<>();
            Optional<JobCondition> podFailurePolicyTarget = Optional.empty();
            for (Pod pod : jobPods) {
                String uid = pod.getMetadata().getUid();
                if (!hasTrackingFinalizer(pod) || pendingRemovals.contains(uid) || uncounted.getSucceeded().contains(uid) || uncounted.getFailed().contains(uid)) {
                    continue;
                }
                if ("Succeeded".equals(Pods.phase(pod))) {
                    newSucceeded.add(pod);
                } else if ("Failed".equals(Pods.phase(pod))) {
                    PodFailurePolicies.Match match = PodFailurePolicies.match(job.getSpec().getPodFailurePolicy(), pod);
                    if (!match.countsAsFailure()) {
                        ignoredFailures.add(pod);
                        continue;
                    }
                    newFailed.add(pod);
                    int index = completionIndex(pod);
                    if (backoffLimitPerIndex != null && index >= 0 && index < value(completions)
                            && (match.action() == PodFailurePolicies.Action.FAIL_INDEX || indexFailureCount(pod) + 1 > backoffLimitPerIndex)) {
                        failedIndexes.add(index);
                    }
                    if (match.action() == PodFailurePolicies.Action.FAIL_JOB && podFailurePolicyTarget.isEmpty()) {
                        podFailurePolicyTarget = Optional.of(condition("FailureTarget", "PodFailurePolicy", match.message().orElse("")));
                    }
                }
            }
            for (Pod pod : newSucceeded) {
                uncounted.getSucceeded().add(pod.getMetadata().getUid());
                int index = completionIndex(pod);
                if (indexed && index >= 0 && completions != null && index < completions) {
                    completedIndexes.add(index);
                }
            }
            newFailed.forEach(pod -> uncounted.getFailed().add(pod.getMetadata().getUid()));
            BackoffRecord backoff = nextBackoffRecord(newSucceeded, newFailed);

            int succeeded = indexed ? completedIndexes.size() : value(status.getSucceeded()) + uncounted.getSucceeded().size();
            int failed = value(status.getFailed()) + uncounted.getFailed().size();

            if (status.getStartTime() == null && !suspended()) {
                status.setStartTime(format(now));
            }
            Optional<JobCondition> target = findCondition("FailureTarget").or(() -> findCondition("SuccessCriteriaMet"));
            if (target.isEmpty()) {
                target = podFailurePolicyTarget
                        .or(() -> failed > backoffLimit()
                                ? Optional.of(condition("FailureTarget", "BackoffLimitExceeded", "Job has reached the specified backoff limit"))
                                : Optional.empty())
                        .or(this::deadlineTarget)
                        .or(this::failedIndexesTarget)
                        .or(this::successPolicyTarget)
                        .or(() -> succeededEnough(succeeded)
                                ? Optional.of(condition("SuccessCriteriaMet", "CompletionsReached", "Reached expected number of succeeded pods"))
                                : Optional.empty());
                target.ifPresent(condition -> status.getConditions().add(condition));
            }
            if (target.isPresent()) {
                // A job that reached its target keeps no pod running, whether it failed or succeeded.
                deleteActive(active);
            } else if (needsSync) {
                manage(succeeded, backoff);
            }

            status.setActive(active.size());
            status.setReady((int) active.stream().filter(Pods::isReady).count());
            status.setTerminating(terminating);
            if (backoffLimitPerIndex != null) {
                status.setFailedIndexes(failedIndexes.format());
            }
            if (indexed) {
                String formatted = completedIndexes.format();
                status.setCompletedIndexes(formatted);
                status.setSucceeded(value(status.getSucceeded()));
            }
            // First write: remember every newly finished pod in uncountedTerminatedPods, so that a crash after the
            // finalizers are gone cannot lose them.
            if (!newSucceeded.isEmpty() || !newFailed.isEmpty()) {
                write();
            }
            Set<String> released = removeTrackingFinalizers(key, jobPods.stream()
                    .filter(JobController::hasTrackingFinalizer)
                    .filter(pod -> ignoredFailures.contains(pod) || uncounted.getSucceeded().contains(pod.getMetadata().getUid())
                            || uncounted.getFailed().contains(pod.getMetadata().getUid()))
                    .toList());
            Set<String> present = jobPods.stream().filter(JobController::hasTrackingFinalizer).map(pod -> pod.getMetadata().getUid()).collect(Collectors.toSet());
            moveToCounters(uncounted.getSucceeded(), released, present, true);
            moveToCounters(uncounted.getFailed(), released, present, false);
            if (indexed) {
                status.setSucceeded(completedIndexes.size());
            }
            if (target.isPresent() && active.isEmpty() && terminating == 0 && uncounted.getSucceeded().isEmpty() && uncounted.getFailed().isEmpty()) {
                finish(target.get());
            }
            if (!status.toString().equals(originalStatus)) {
                write();
            }
            backoffs.put(key, backoff);
            afterWrite.forEach(Runnable::run);
            return requeue;
        }

        private void moveToCounters(List<String> uids, Set<String> released, Set<String> present, boolean succeeded) {
            List<String> counted = uids.stream().filter(uid -> released.contains(uid) || !present.contains(uid)).toList();
            if (counted.isEmpty()) {
                return;
            }
            uids.removeAll(counted);
            if (succeeded) {
                if (!indexed) {
                    status.setSucceeded(value(status.getSucceeded()) + counted.size());
                }
            } else {
                status.setFailed(value(status.getFailed()) + counted.size());
            }
        }

        private void finish(JobCondition target) {
            boolean success = "SuccessCriteriaMet".equals(target.getType());
            JobCondition terminal = condition(success ? "Complete" : "Failed", target.getReason(), target.getMessage());
            status.getConditions().add(terminal);
            if (success) {
                status.setCompletionTime(format(now));
                afterWrite.add(() -> events.event(job, EventRecorder.NORMAL, "Completed", "Job completed"));
            } else {
                afterWrite.add(() -> events.event(job, EventRecorder.WARNING, terminal.getReason(), terminal.getMessage()));
            }
        }

        private void write() {
            job.setStatus(status);
            job = writer.updateStatus(job);
            // Keep working on our own status object; only the resourceVersion is needed from the answer.
            job.setStatus(status);
        }

        private boolean suspended() {
            return Boolean.TRUE.equals(job.getSpec().getSuspend());
        }

        private int backoffLimit() {
            return job.getSpec().getBackoffLimit() == null ? 6 : job.getSpec().getBackoffLimit();
        }

        private boolean succeededEnough(int succeeded) {
            if (completions == null) {
                // A work-queue job is done once one pod succeeded and the others finished.
                return succeeded > 0 && active.isEmpty();
            }
            return succeeded >= completions;
        }

        /** With {@code backoffLimitPerIndex}: too many failed indexes, or every index finished and some failed. */
        private Optional<JobCondition> failedIndexesTarget() {
            if (backoffLimitPerIndex == null || failedIndexes.size() == 0) {
                return Optional.empty();
            }
            Integer maxFailedIndexes = job.getSpec().getMaxFailedIndexes();
            if (maxFailedIndexes != null && failedIndexes.size() > maxFailedIndexes) {
                return Optional.of(condition("FailureTarget", "MaxFailedIndexesExceeded", "Job has exceeded the specified maximal number of failed indexes"));
            }
            if (completedIndexes.size() + failedIndexes.size() >= value(completions)) {
                return Optional.of(condition("FailureTarget", "FailedIndexes", "Job has failed indexes"));
            }
            return Optional.empty();
        }

        /** The first {@code successPolicy} rule the completed indexes satisfy (Indexed jobs only, as upstream). */
        private Optional<JobCondition> successPolicyTarget() {
            if (!indexed || job.getSpec().getSuccessPolicy() == null || job.getSpec().getSuccessPolicy().getRules() == null) {
                return Optional.empty();
            }
            int total = completions == null ? 0 : completions;
            List<SuccessPolicyRule> rules = job.getSpec().getSuccessPolicy().getRules();
            for (int index = 0; index < rules.size(); index++) {
                SuccessPolicyRule rule = rules.get(index);
                boolean matched;
                if (rule.getSucceededIndexes() != null) {
                    CompletedIndexes wanted = CompletedIndexes.parse(rule.getSucceededIndexes(), total);
                    int done = (int) wanted.stream().filter(completedIndexes::contains).count();
                    matched = rule.getSucceededCount() == null ? done == wanted.size() && done > 0 : done >= rule.getSucceededCount();
                } else {
                    matched = rule.getSucceededCount() != null && completedIndexes.size() >= rule.getSucceededCount();
                }
                if (matched) {
                    return Optional.of(condition("SuccessCriteriaMet", "SuccessPolicy", "Matched rules at index " + index));
                }
            }
            return Optional.empty();
        }

        private Optional<JobCondition> deadlineTarget() {
            Long deadline = job.getSpec().getActiveDeadlineSeconds();
            if (deadline == null || status.getStartTime() == null || suspended()) {
                return Optional.empty();
            }
            Instant expiry = Instant.parse(status.getStartTime()).plusSeconds(deadline);
            if (!now.isBefore(expiry)) {
                return Optional.of(condition("FailureTarget", "DeadlineExceeded", "Job was active longer than specified deadline"));
            }
            requeueAfter(Duration.between(now, expiry));
            return Optional.empty();
        }

        private void requeueAfter(Duration delay) {
            if (requeue.isEmpty() || delay.compareTo(requeue.get()) < 0) {
                requeue = Optional.of(delay);
            }
        }

        private Optional<JobCondition> findCondition(String type) {
            return status.getConditions().stream().filter(condition -> type.equals(condition.getType()) && TRUE.equals(condition.getStatus())).findFirst();
        }

        private JobCondition condition(String type, String reason, String message) {
            JobCondition condition = new JobCondition();
            condition.setType(type);
            condition.setStatus(TRUE);
            condition.setReason(reason);
            condition.setMessage(message);
            condition.setLastProbeTime(format(now));
            condition.setLastTransitionTime(format(now));
            return condition;
        }

        private void manage(int succeeded, BackoffRecord backoff) {
            if (suspended()) {
                deleteActive(active);
                Optional<JobCondition> suspendedCondition = status.getConditions().stream().filter(condition -> "Suspended".equals(condition.getType())).findFirst();
                if (suspendedCondition.isEmpty() || !TRUE.equals(suspendedCondition.get().getStatus())) {
                    status.getConditions().removeIf(condition -> "Suspended".equals(condition.getType()));
                    status.getConditions().add(condition("Suspended", "JobSuspended", "Job suspended"));
                    afterWrite.add(() -> events.event(job, EventRecorder.NORMAL, "Suspended", "Job suspended"));
                }
                return;
            }
            Optional<JobCondition> suspendedCondition = status.getConditions().stream()
                    .filter(condition -> "Suspended".equals(condition.getType()) && TRUE.equals(condition.getStatus())).findFirst();
            if (suspendedCondition.isPresent()) {
                JobCondition resumed = condition("Suspended", "JobResumed", "Job resumed");
                resumed.setStatus("False");
                status.getConditions().replaceAll(condition -> condition == suspendedCondition.get() ? resumed : condition);
                // The deadline counts from the resumption, as upstream resets startTime.
                status.setStartTime(format(now));
                afterWrite.add(() -> events.event(job, EventRecorder.NORMAL, "Resumed", "Job resumed"));
            }
            if (indexed) {
                manageIndexed(backoff);
            } else {
                manageNonIndexed(succeeded, backoff);
            }
        }

        private void manageNonIndexed(int succeeded, BackoffRecord backoff) {
            int wantActive;
            if (completions == null) {
                wantActive = succeeded > 0 ? active.size() : parallelism;
            } else {
                wantActive = Math.max(0, Math.min(completions - succeeded, parallelism));
            }
            int occupied = active.size() + (onlyReplaceFailedPods() ? terminating : 0);
            if (active.size() > wantActive) {
                List<Pod> ranked = new ArrayList<>(active);
                ranked.sort(DELETION_ORDER);
                deleteActive(ranked.subList(0, active.size() - wantActive));
                return;
            }
            int toCreate = wantActive - occupied;
            if (toCreate > 0 && mayCreate(backoff)) {
                List<Integer> noIndexes = new ArrayList<>();
                for (int i = 0; i < toCreate; i++) {
                    noIndexes.add(-1);
                }
                createPods(noIndexes);
            }
        }

        private void manageIndexed(BackoffRecord backoff) {
            int total = completions == null ? 0 : completions;
            Map<Integer, List<Pod>> activeByIndex = new HashMap<>();
            List<Pod> toDelete = new ArrayList<>();
            for (Pod pod : active) {
                int index = completionIndex(pod);
                if (index < 0 || index >= total || completedIndexes.contains(index) || failedIndexes.contains(index)) {
                    toDelete.add(pod);
                } else {
                    activeByIndex.computeIfAbsent(index, ignored -> new ArrayList<>()).add(pod);
                }
            }
            for (List<Pod> duplicates : activeByIndex.values()) {
                if (duplicates.size() > 1) {
                    List<Pod> ranked = new ArrayList<>(duplicates);
                    ranked.sort(DELETION_ORDER);
                    toDelete.addAll(ranked.subList(0, ranked.size() - 1));
                }
            }
            Set<Integer> busy = new HashSet<>(activeByIndex.keySet());
            if (onlyReplaceFailedPods()) {
                jobPods.stream().filter(pod -> Pods.isTerminating(pod) && !isTerminal(pod)).forEach(pod -> busy.add(completionIndex(pod)));
            }
            int running = activeByIndex.size();
            if (running > parallelism) {
                List<Pod> extra = activeByIndex.values().stream().map(list -> list.get(0)).sorted(DELETION_ORDER).toList();
                toDelete.addAll(extra.subList(0, running - parallelism));
                running = parallelism;
            }
            if (!toDelete.isEmpty()) {
                deleteActive(toDelete);
            }
            Map<Integer, Pod> lastFailure = new HashMap<>();
            for (Pod pod : jobPods) {
                int index = completionIndex(pod);
                if ("Failed".equals(Pods.phase(pod)) && index >= 0
                        && (!lastFailure.containsKey(index) || finishTime(pod, now).isAfter(finishTime(lastFailure.get(index), now)))) {
                    lastFailure.put(index, pod);
                }
            }
            List<Integer> missing = new ArrayList<>();
            for (int index = 0; index < total && missing.size() < parallelism - running; index++) {
                if (busy.contains(index) || completedIndexes.contains(index) || failedIndexes.contains(index)) {
                    continue;
                }
                if (backoffLimitPerIndex != null && lastFailure.containsKey(index)) {
                    // Each index backs off on its own failures, as upstream does with backoffLimitPerIndex.
                    Pod failedPod = lastFailure.get(index);
                    int failures = indexFailureCount(failedPod) + 1;
                    indexFailures.put(index, failures);
                    Optional<Duration> wait = remainingBackoff(new BackoffRecord(failures, Optional.of(finishTime(failedPod, now))), now);
                    if (wait.isPresent()) {
                        requeueAfter(wait.get());
                        continue;
                    }
                }
                missing.add(index);
            }
            if (!missing.isEmpty() && (backoffLimitPerIndex != null || mayCreate(backoff))) {
                createPods(missing);
            }
        }

        private boolean onlyReplaceFailedPods() {
            return "Failed".equals(job.getSpec().getPodReplacementPolicy()) || job.getSpec().getPodFailurePolicy() != null;
        }

        /** False while the backoff since the last failure runs; schedules a sync for when it ends. */
        private boolean mayCreate(BackoffRecord backoff) {
            Optional<Duration> remaining = remainingBackoff(backoff, now);
            if (remaining.isPresent()) {
                requeueAfter(remaining.get());
                return false;
            }
            return true;
        }

        private void createPods(List<Integer> indexes) {
            expectations.expectCreations(key, indexes.size());
            OwnerReference reference = OwnerReferences.newControllerRef(job, "batch/v1", "Job");
            int created = 0;
            // Slow start as upstream: batches of 1, 2, 4, ... so that a failing create does not repeat many times.
            int batch = 1;
            int position = 0;
            boolean failedOnce = false;
            while (position < indexes.size() && !failedOnce) {
                int end = Math.min(indexes.size(), position + batch);
                for (int i = position; i < end; i++) {
                    Pod pod = podFor(reference, indexes.get(i));
                    try {
                        Pod createdPod = podControl.createPod(job.getMetadata().getNamespace(), pod, job);
                        active.add(createdPod);
                        created++;
                    } catch (KubernetesClientException e) {
                        failedOnce = true;
                        LOG.warn("job {}: creating a pod failed: {}", key, e.getMessage());
                    }
                }
                position = end;
                batch *= 2;
            }
            int skipped = indexes.size() - created;
            if (skipped > 0) {
                expectations.lowerExpectations(key, skipped, 0);
                throw new IllegalStateException("job " + key + ": " + skipped + " of " + indexes.size() + " pods could not be created");
            }
        }

        private Pod podFor(OwnerReference reference, int index) {
            Pod pod = ApiPodControl.podFromTemplate(job.getSpec().getTemplate(), job, reference);
            List<String> finalizers = pod.getMetadata().getFinalizers() == null ? new ArrayList<>() : new ArrayList<>(pod.getMetadata().getFinalizers());
            if (!finalizers.contains(TRACKING_FINALIZER)) {
                finalizers.add(TRACKING_FINALIZER);
            }
            pod.getMetadata().setFinalizers(finalizers);
            if (index >= 0) {
                String value = Integer.toString(index);
                Map<String, String> annotations = pod.getMetadata().getAnnotations() == null ? new HashMap<>() : pod.getMetadata().getAnnotations();
                annotations.put(COMPLETION_INDEX, value);
                if (backoffLimitPerIndex != null) {
                    annotations.put(INDEX_FAILURE_COUNT, Integer.toString(indexFailures.getOrDefault(index, 0)));
                }
                pod.getMetadata().setAnnotations(annotations);
                Map<String, String> podLabels = pod.getMetadata().getLabels() == null ? new HashMap<>() : pod.getMetadata().getLabels();
                podLabels.put(COMPLETION_INDEX, value);
                pod.getMetadata().setLabels(podLabels);
                pod.getMetadata().setGenerateName(job.getMetadata().getName() + "-" + index + "-");
                if (pod.getSpec().getHostname() == null || pod.getSpec().getHostname().isEmpty()) {
                    pod.getSpec().setHostname(job.getMetadata().getName() + "-" + index);
                }
                addIndexEnvironment(pod.getSpec().getContainers());
                addIndexEnvironment(pod.getSpec().getInitContainers());
            }
            return pod;
        }

        private void deleteActive(List<Pod> victims) {
            if (victims.isEmpty()) {
                return;
            }
            Set<String> keys = victims.stream().map(ObjectKeys::key).collect(Collectors.toCollection(LinkedHashSet::new));
            expectations.expectDeletions(key, keys);
            List<Pod> remaining = new ArrayList<>(active);
            RuntimeException failure = null;
            for (Pod pod : victims) {
                try {
                    podControl.deletePod(pod.getMetadata().getNamespace(), pod.getMetadata().getName(), job);
                    remaining.remove(pod);
                    // A deleted pod keeps its finalizer until it is terminal, so it counts as terminating meanwhile.
                    terminating++;
                } catch (KubernetesClientException e) {
                    expectations.deletionObserved(key, ObjectKeys.key(pod));
                    failure = e;
                }
            }
            active = remaining;
            if (failure != null) {
                throw failure;
            }
        }

        private BackoffRecord nextBackoffRecord(List<Pod> newSucceeded, List<Pod> newFailed) {
            BackoffRecord previous = backoffs.getOrDefault(key, new BackoffRecord(0, Optional.empty()));
            if (newSucceeded.isEmpty() && newFailed.isEmpty()) {
                return previous;
            }
            Optional<Instant> lastFailure = newFailed.stream().map(pod -> finishTime(pod, now)).max(Comparator.naturalOrder());
            if (!newSucceeded.isEmpty()) {
                Instant lastSuccess = newSucceeded.stream().map(pod -> finishTime(pod, now)).max(Comparator.naturalOrder()).orElse(now);
                int failuresAfter = (int) newFailed.stream().filter(pod -> finishTime(pod, now).isAfter(lastSuccess)).count();
                return new BackoffRecord(failuresAfter, failuresAfter == 0 ? Optional.empty() : lastFailure);
            }
            return new BackoffRecord(previous.failuresAfterLastSuccess() + newFailed.size(), lastFailure.or(previous::lastFailureTime));
        }
    }

    /** How long pod creation must still wait after failures: 10 s doubling per failure, capped at 6 min. */
    static Optional<Duration> remainingBackoff(BackoffRecord record, Instant now) {
        if (record.failuresAfterLastSuccess() == 0 || record.lastFailureTime().isEmpty()) {
            return Optional.empty();
        }
        Duration backoff = DEFAULT_BACKOFF;
        for (int i = 1; i < record.failuresAfterLastSuccess() && backoff.compareTo(MAX_BACKOFF) < 0; i++) {
            backoff = backoff.multipliedBy(2);
        }
        if (backoff.compareTo(MAX_BACKOFF) > 0) {
            backoff = MAX_BACKOFF;
        }
        Duration remaining = Duration.between(now, record.lastFailureTime().get().plus(backoff));
        return remaining.isNegative() || remaining.isZero() ? Optional.empty() : Optional.of(remaining);
    }

    /** When a pod finished: its containers' latest termination, else {@code now} (upstream's {@code getFinishedTime}). */
    static Instant finishTime(Pod pod, Instant now) {
        Instant latest = null;
        if (pod.getStatus() != null && pod.getStatus().getContainerStatuses() != null) {
            for (ContainerStatus status : pod.getStatus().getContainerStatuses()) {
                if (status.getState() != null && status.getState().getTerminated() != null && status.getState().getTerminated().getFinishedAt() != null) {
                    Instant finished = Instant.parse(status.getState().getTerminated().getFinishedAt());
                    if (latest == null || finished.isAfter(latest)) {
                        latest = finished;
                    }
                }
            }
        }
        return latest == null ? now : latest;
    }

    /** Pods to delete first: unscheduled, then pending, then not ready, then the youngest (upstream's {@code ActivePods}). */
    private static final Comparator<Pod> DELETION_ORDER = Comparator
            .comparing((Pod pod) -> Pods.isScheduled(pod))
            .thenComparing(pod -> phaseRank(Pods.phase(pod)))
            .thenComparing(Pods::isReady)
            .thenComparing((Pod pod) -> Objects.toString(pod.getMetadata().getCreationTimestamp(), ""), Comparator.reverseOrder());

    private static int phaseRank(String phase) {
        return switch (phase) {
            case "Pending" -> 0;
            case "Unknown" -> 1;
            case "Running" -> 2;
            default -> 3;
        };
    }

    private static void addIndexEnvironment(List<Container> containers) {
        if (containers == null) {
            return;
        }
        for (Container container : containers) {
            List<EnvVar> environment = container.getEnv() == null ? new ArrayList<>() : new ArrayList<>(container.getEnv());
            if (environment.stream().anyMatch(variable -> COMPLETION_INDEX_ENV.equals(variable.getName()))) {
                continue;
            }
            environment.add(new EnvVarBuilder().withName(COMPLETION_INDEX_ENV)
                    .withNewValueFrom().withNewFieldRef().withFieldPath("metadata.annotations['" + COMPLETION_INDEX + "']").endFieldRef().endValueFrom()
                    .build());
            container.setEnv(environment);
        }
    }

    /** Removes the tracking finalizer from {@code targets}; returns the uids it was removed from. */
    private Set<String> removeTrackingFinalizers(String key, List<Pod> targets) {
        Set<String> released = new HashSet<>();
        if (targets.isEmpty()) {
            return released;
        }
        Set<String> pending = finalizerRemovals.computeIfAbsent(key, ignored -> ConcurrentHashMap.newKeySet());
        KubernetesClientException failure = null;
        for (Pod pod : targets) {
            String uid = pod.getMetadata().getUid();
            pending.add(uid);
            String patch = "{\"metadata\":{\"$deleteFromPrimitiveList/finalizers\":[\"" + TRACKING_FINALIZER + "\"],\"uid\":\"" + uid + "\"}}";
            try {
                podControl.patchPod(pod.getMetadata().getNamespace(), pod.getMetadata().getName(), patch);
                released.add(uid);
            } catch (KubernetesClientException e) {
                pending.remove(uid);
                if (e.getCode() == 404) {
                    // Gone: nothing holds it any more, and it counts like a released one.
                    released.add(uid);
                } else {
                    failure = e;
                }
            }
        }
        if (failure != null && released.isEmpty()) {
            throw failure;
        }
        return released;
    }

    static boolean hasTrackingFinalizer(Pod pod) {
        return pod.getMetadata().getFinalizers() != null && pod.getMetadata().getFinalizers().contains(TRACKING_FINALIZER);
    }

    private static boolean isTerminal(Pod pod) {
        String phase = Pods.phase(pod);
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    /** Complete or Failed: upstream's {@code IsJobFinished}. */
    static boolean isFinished(Job job) {
        if (job.getStatus() == null || job.getStatus().getConditions() == null) {
            return false;
        }
        return job.getStatus().getConditions().stream()
                .anyMatch(condition -> ("Complete".equals(condition.getType()) || "Failed".equals(condition.getType())) && TRUE.equals(condition.getStatus()));
    }

    /** How often the pod's index had failed before the pod was created (its failure-count annotation). */
    static int indexFailureCount(Pod pod) {
        String value = pod.getMetadata().getAnnotations() == null ? null : pod.getMetadata().getAnnotations().get(INDEX_FAILURE_COUNT);
        if (value == null) {
            return 0;
        }
        try {
            return Math.max(0, Integer.parseInt(value));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** The pod's completion index from its annotation (or label), -1 when missing or invalid. */
    static int completionIndex(Pod pod) {
        String value = pod.getMetadata().getAnnotations() == null ? null : pod.getMetadata().getAnnotations().get(COMPLETION_INDEX);
        if (value == null && pod.getMetadata().getLabels() != null) {
            value = pod.getMetadata().getLabels().get(COMPLETION_INDEX);
        }
        if (value == null) {
            return -1;
        }
        try {
            int index = Integer.parseInt(value);
            return index < 0 ? -1 : index;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static int value(Integer number) {
        return number == null ? 0 : number;
    }

    private static Map<String, String> labels(Pod pod) {
        return pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
    }

    static String format(Instant instant) {
        return instant.truncatedTo(ChronoUnit.SECONDS).toString();
    }
}
