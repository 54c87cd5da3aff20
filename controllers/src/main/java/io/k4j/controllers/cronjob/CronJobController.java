package io.k4j.controllers.cronjob;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobStatus;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.api.model.batch.v1.JobSpecBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.k4j.api.cron.CronSchedule;
import io.k4j.controllerkit.events.EventRecorder;
import io.k4j.controllerkit.informers.EnqueueHandlers;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.informers.ObjectKeys;
import io.k4j.controllerkit.manager.Controller;
import io.k4j.controllerkit.manager.ControllerContext;
import io.k4j.controllerkit.pods.OwnerReferences;
import io.k4j.controllerkit.workqueue.QueueWorkers;
import io.k4j.controllerkit.workqueue.WorkQueue;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates Jobs on a cron schedule, as upstream's {@code cronjob_controllerv2.go}: one Job per activation named
 * {@code <cronjob>-<minutes since the epoch>}, at most the most recent missed activation (warning when over 100 were
 * missed), {@code startingDeadlineSeconds}, {@code concurrencyPolicy} Allow/Forbid/Replace, {@code suspend}, the
 * history limits, and the status fields {@code active}, {@code lastScheduleTime} and {@code lastSuccessfulTime}. It
 * requeues each CronJob for exactly its next activation instead of polling. Thread-safe.
 */
public final class CronJobController implements Controller {
    public static final String NAME = "cronjob";
    public static final String SERVICE_ACCOUNT = "cronjob-controller";
    /** Upstream's {@code --concurrent-cron-job-syncs} default. */
    public static final int DEFAULT_WORKERS = 5;

    static final String SCHEDULED_TIMESTAMP_ANNOTATION = "batch.kubernetes.io/cronjob-scheduled-timestamp";
    /** Upstream requeues slightly after the activation so that it is certainly due. */
    static final Duration NEXT_SCHEDULE_DELTA = Duration.ofMillis(100);

    private static final Logger LOG = LoggerFactory.getLogger(CronJobController.class);
    private static final DateTimeFormatter RFC1123Z = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss Z", Locale.ROOT);

    private final Lister<CronJob> cronJobs;
    private final Lister<Job> jobs;
    private final CronJobWriter writer;
    private final EventRecorder events;
    private final InstantSource clock;
    private final ZoneId localZone;
    private final WorkQueue<String> queue = WorkQueue.withDefaultRateLimiter(NAME);
    private final QueueWorkers<String> workers = QueueWorkers.requeuingAfter(queue, this::sync);

    public CronJobController(ControllerContext context) {
        this(context.informers().lister(CronJob.class), context.informers().lister(Job.class), new ApiCronJobWriter(context.clientFor(SERVICE_ACCOUNT)),
                context.eventRecorder(SERVICE_ACCOUNT), context.clock(), ZoneId.systemDefault());
        context.informers().informer(CronJob.class).addEventHandler(EnqueueHandlers.onEveryChange(cronJob -> queue.add(ObjectKeys.key(cronJob))));
        context.informers().informer(Job.class).addEventHandler(EnqueueHandlers.onEveryChange(this::enqueueOwner));
    }

    CronJobController(Lister<CronJob> cronJobs, Lister<Job> jobs, CronJobWriter writer, EventRecorder events, InstantSource clock, ZoneId localZone) {
        this.cronJobs = requireNonNull(cronJobs, "cronJobs is null");
        this.jobs = requireNonNull(jobs, "jobs is null");
        this.writer = requireNonNull(writer, "writer is null");
        this.events = requireNonNull(events, "events is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.localZone = requireNonNull(localZone, "localZone is null");
    }

    @Override
    public void start(int workerCount) {
        workers.start(workerCount);
    }

    @Override
    public void close() {
        workers.close();
    }

    private void enqueueOwner(Job job) {
        OwnerReferences.controllerKey(job, "CronJob").ifPresent(queue::add);
    }

    /**
     * Reconciles one CronJob.
     *
     * @return how long until its next activation, when it has one
     */
    Optional<Duration> sync(String key) {
        Optional<CronJob> cached = cronJobs.getByKey(key);
        if (cached.isEmpty()) {
            return Optional.empty();
        }
        CronJob cronJob = new CronJobBuilder(cached.get()).build();
        if (cronJob.getStatus() == null) {
            cronJob.setStatus(new CronJobStatus());
        }
        CronJobStatus status = cronJob.getStatus();
        status.setActive(status.getActive() == null ? new ArrayList<>() : new ArrayList<>(status.getActive()));
        String originalStatus = status.toString();
        List<Job> owned = jobs.list(cronJob.getMetadata().getNamespace()).stream()
                .filter(job -> OwnerReferences.isControlledBy(job, cronJob.getMetadata().getUid()))
                .toList();

        Optional<Duration> requeue = syncCronJob(cronJob, owned);
        if (cronJob.getMetadata().getDeletionTimestamp() == null) {
            cleanupFinishedJobs(cronJob, owned);
        }
        if (!status.toString().equals(originalStatus)) {
            writer.updateStatus(cronJob);
        }
        return requeue;
    }

    private Optional<Duration> syncCronJob(CronJob cronJob, List<Job> owned) {
        CronJobStatus status = cronJob.getStatus();
        Map<String, Job> byUid = new HashMap<>();
        for (Job job : owned) {
            byUid.put(job.getMetadata().getUid(), job);
            boolean listed = status.getActive().stream().anyMatch(reference -> Objects.equals(reference.getUid(), job.getMetadata().getUid()));
            Optional<String> finished = finishedCondition(job);
            if (listed && finished.isPresent()) {
                status.getActive().removeIf(reference -> Objects.equals(reference.getUid(), job.getMetadata().getUid()));
                events.event(cronJob, EventRecorder.NORMAL, "SawCompletedJob", "Saw completed job: " + job.getMetadata().getName() + ", condition: " + finished.get());
                if ("Complete".equals(finished.get()) && job.getStatus() != null && job.getStatus().getCompletionTime() != null) {
                    String completion = job.getStatus().getCompletionTime();
                    if (status.getLastSuccessfulTime() == null || Instant.parse(completion).isAfter(Instant.parse(status.getLastSuccessfulTime()))) {
                        status.setLastSuccessfulTime(completion);
                    }
                }
            } else if (!listed && finished.isEmpty()) {
                // Ours but not in the active list: we crashed between creating it and writing the status, or
                // someone created it for us. Upstream leaves it alone and says so.
                events.event(cronJob, EventRecorder.WARNING, "UnexpectedJob", "Saw a job that the controller did not create or forgot: " + job.getMetadata().getName());
            }
        }
        for (ObjectReference reference : List.copyOf(status.getActive())) {
            if (byUid.containsKey(reference.getUid())) {
                continue;
            }
            // Not in the cache: ask the apiserver, the cache may lag behind our own create.
            Optional<Job> fresh = writer.getJob(cronJob.getMetadata().getNamespace(), reference.getName());
            if (fresh.isEmpty() || !Objects.equals(fresh.get().getMetadata().getUid(), reference.getUid())) {
                status.getActive().remove(reference);
                events.event(cronJob, EventRecorder.NORMAL, "MissingJob", "Active job went missing: " + reference.getName());
            }
        }
        if (cronJob.getMetadata().getDeletionTimestamp() != null) {
            return Optional.empty();
        }
        ZoneId zone = localZone;
        String timeZone = cronJob.getSpec().getTimeZone();
        if (timeZone != null) {
            Optional<ZoneId> loaded = CronSchedule.loadLocation(timeZone);
            if (loaded.isEmpty()) {
                events.event(cronJob, EventRecorder.WARNING, "UnknownTimeZone", "invalid timeZone: \"" + timeZone + "\": unknown time zone " + timeZone);
                return Optional.empty();
            }
            zone = loaded.get();
        }
        if (Boolean.TRUE.equals(cronJob.getSpec().getSuspend())) {
            return Optional.empty();
        }
        CronSchedule schedule;
        try {
            schedule = CronSchedule.parse(cronJob.getSpec().getSchedule());
        } catch (CronSchedule.InvalidScheduleException e) {
            events.event(cronJob, EventRecorder.WARNING, "UnparseableSchedule", "unparseable schedule: \"" + cronJob.getSpec().getSchedule() + "\" : " + e.getMessage());
            return Optional.empty();
        }
        Instant now = clock.instant();
        Instant earliest = status.getLastScheduleTime() != null ? Instant.parse(status.getLastScheduleTime()) : Instant.parse(cronJob.getMetadata().getCreationTimestamp());
        Optional<Long> deadline = Optional.ofNullable(cronJob.getSpec().getStartingDeadlineSeconds());
        ScheduleTimes.Due due = ScheduleTimes.mostRecent(schedule, zone, earliest, deadline, now);
        if (due.missed() > ScheduleTimes.MISSED_WARNING_THRESHOLD) {
            events.event(cronJob, EventRecorder.WARNING, "TooManyMissedTimes",
                    "too many missed start times: " + due.missed() + ". Set or decrease .spec.startingDeadlineSeconds or check clock skew");
        }
        Optional<Duration> requeue = untilNext(schedule, zone, now);
        if (due.mostRecent().isEmpty()) {
            return requeue;
        }
        ZonedDateTime scheduledTime = due.mostRecent().get();
        if (deadline.isPresent() && scheduledTime.toInstant().plusSeconds(deadline.get()).isBefore(now)) {
            events.event(cronJob, EventRecorder.WARNING, "MissSchedule", "Missed scheduled time to start a job: " + RFC1123Z.format(scheduledTime));
            return requeue;
        }
        String jobName = jobName(cronJob.getMetadata().getName(), scheduledTime.toInstant());
        boolean alreadyProcessed = status.getActive().stream().anyMatch(reference -> jobName.equals(reference.getName()))
                || (status.getLastScheduleTime() != null && Instant.parse(status.getLastScheduleTime()).equals(scheduledTime.toInstant()));
        if (alreadyProcessed) {
            return requeue;
        }
        String policy = cronJob.getSpec().getConcurrencyPolicy() == null ? "Allow" : cronJob.getSpec().getConcurrencyPolicy();
        if ("Forbid".equals(policy) && !status.getActive().isEmpty()) {
            events.event(cronJob, EventRecorder.NORMAL, "JobAlreadyActive", "Not starting job because prior execution is running and concurrency policy is Forbid");
            return requeue;
        }
        if ("Replace".equals(policy)) {
            for (ObjectReference reference : List.copyOf(status.getActive())) {
                deleteJob(cronJob, reference.getName());
                status.getActive().remove(reference);
            }
        }
        Job job = jobFromTemplate(cronJob, scheduledTime);
        Job created;
        try {
            created = writer.createJob(job);
            events.event(cronJob, EventRecorder.NORMAL, "SuccessfulCreate", "Created job " + jobName);
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                events.event(cronJob, EventRecorder.WARNING, "FailedCreate", "Error creating job: " + e.getMessage());
                throw e;
            }
            // Created by an earlier sync whose status write failed: take it if it is ours.
            Optional<Job> existing = writer.getJob(cronJob.getMetadata().getNamespace(), jobName);
            if (existing.isEmpty() || !OwnerReferences.isControlledBy(existing.get(), cronJob.getMetadata().getUid())) {
                throw e;
            }
            created = existing.get();
        }
        if (finishedCondition(created).isEmpty()) {
            status.getActive().add(reference(created));
        }
        status.setLastScheduleTime(scheduledTime.toInstant().truncatedTo(ChronoUnit.SECONDS).toString());
        return requeue;
    }

    private Optional<Duration> untilNext(CronSchedule schedule, ZoneId zone, Instant now) {
        return ScheduleTimes.next(schedule, zone, now).map(next -> Duration.between(now, next.toInstant()).plus(NEXT_SCHEDULE_DELTA));
    }

    private void cleanupFinishedJobs(CronJob cronJob, List<Job> owned) {
        Integer successfulLimit = cronJob.getSpec().getSuccessfulJobsHistoryLimit();
        Integer failedLimit = cronJob.getSpec().getFailedJobsHistoryLimit();
        if (successfulLimit == null && failedLimit == null) {
            return;
        }
        List<Job> successful = new ArrayList<>();
        List<Job> failed = new ArrayList<>();
        for (Job job : owned) {
            Optional<String> finished = finishedCondition(job);
            if (finished.isPresent() && job.getMetadata().getDeletionTimestamp() == null) {
                ("Complete".equals(finished.get()) ? successful : failed).add(job);
            }
        }
        if (successfulLimit != null) {
            removeOldestJobs(cronJob, successful, successfulLimit);
        }
        if (failedLimit != null) {
            removeOldestJobs(cronJob, failed, failedLimit);
        }
    }

    private void removeOldestJobs(CronJob cronJob, List<Job> finished, int limit) {
        if (finished.size() <= limit) {
            return;
        }
        List<Job> sorted = new ArrayList<>(finished);
        sorted.sort(Comparator.comparing(CronJobController::startTime));
        for (Job job : sorted.subList(0, sorted.size() - limit)) {
            deleteJob(cronJob, job.getMetadata().getName());
        }
    }

    private void deleteJob(CronJob cronJob, String name) {
        try {
            writer.deleteJob(cronJob.getMetadata().getNamespace(), name);
            events.event(cronJob, EventRecorder.NORMAL, "SuccessfulDelete", "Deleted job " + name);
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) {
                events.event(cronJob, EventRecorder.WARNING, "FailedDelete", "Deleted job: " + e.getMessage());
                LOG.warn("cronjob {}: deleting job {} failed: {}", ObjectKeys.key(cronJob), name, e.getMessage());
            }
        }
    }

    private static Instant startTime(Job job) {
        if (job.getStatus() != null && job.getStatus().getStartTime() != null) {
            return Instant.parse(job.getStatus().getStartTime());
        }
        String created = job.getMetadata().getCreationTimestamp();
        return created == null ? Instant.EPOCH : Instant.parse(created);
    }

    /** {@code Complete} or {@code Failed} when the job is finished. */
    static Optional<String> finishedCondition(Job job) {
        if (job.getStatus() == null || job.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        for (JobCondition condition : job.getStatus().getConditions()) {
            if (("Complete".equals(condition.getType()) || "Failed".equals(condition.getType())) && "True".equals(condition.getStatus())) {
                return Optional.of(condition.getType());
            }
        }
        return Optional.empty();
    }

    /** {@code <cronjob>-<scheduled time in minutes since the epoch>}, stable across controller restarts. */
    static String jobName(String cronJobName, Instant scheduledTime) {
        return cronJobName + "-" + scheduledTime.getEpochSecond() / 60;
    }

    static Job jobFromTemplate(CronJob cronJob, ZonedDateTime scheduledTime) {
        ObjectMeta templateMeta = cronJob.getSpec().getJobTemplate().getMetadata();
        Map<String, String> labels = templateMeta == null || templateMeta.getLabels() == null ? new HashMap<>() : new HashMap<>(templateMeta.getLabels());
        Map<String, String> annotations = templateMeta == null || templateMeta.getAnnotations() == null ? new HashMap<>() : new HashMap<>(templateMeta.getAnnotations());
        annotations.put(SCHEDULED_TIMESTAMP_ANNOTATION, scheduledTime.truncatedTo(ChronoUnit.SECONDS).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
        return new JobBuilder()
                .withNewMetadata()
                .withName(jobName(cronJob.getMetadata().getName(), scheduledTime.toInstant()))
                .withNamespace(cronJob.getMetadata().getNamespace())
                .withLabels(labels)
                .withAnnotations(annotations)
                .withOwnerReferences(OwnerReferences.newControllerRef(cronJob, "batch/v1", "CronJob"))
                .endMetadata()
                .withSpec(new JobSpecBuilder(cronJob.getSpec().getJobTemplate().getSpec()).build())
                .build();
    }

    private static ObjectReference reference(Job job) {
        return new ObjectReferenceBuilder()
                .withApiVersion("batch/v1")
                .withKind("Job")
                .withNamespace(job.getMetadata().getNamespace())
                .withName(job.getMetadata().getName())
                .withUid(job.getMetadata().getUid())
                .withResourceVersion(job.getMetadata().getResourceVersion())
                .build();
    }
}
