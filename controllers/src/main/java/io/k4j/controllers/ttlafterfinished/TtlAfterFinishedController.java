package io.k4j.controllers.ttlafterfinished;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.k4j.controllerkit.informers.EnqueueHandlers;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.informers.ObjectKeys;
import io.k4j.controllerkit.manager.Controller;
import io.k4j.controllerkit.manager.ControllerContext;
import io.k4j.controllerkit.workqueue.QueueWorkers;
import io.k4j.controllerkit.workqueue.WorkQueue;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes finished Jobs once {@code ttlSecondsAfterFinished} has passed since they finished, with foreground
 * propagation so their pods go first, as upstream's {@code ttlafterfinished} controller. Before deleting it re-reads the
 * Job from the apiserver, because the TTL may have been changed meanwhile. Thread-safe.
 */
public final class TtlAfterFinishedController implements Controller {
    public static final String NAME = "ttl-after-finished";
    public static final String SERVICE_ACCOUNT = "ttl-after-finished-controller";
    /** Upstream's {@code --concurrent-ttl-after-finished-syncs} default. */
    public static final int DEFAULT_WORKERS = 5;

    private static final Logger LOG = LoggerFactory.getLogger(TtlAfterFinishedController.class);

    /** The Job reads and deletes this controller makes; an interface so unit tests can record them. */
    interface JobClient {
        Optional<Job> get(String namespace, String name);

        /** Deletes in the foreground: the job disappears after its pods. */
        void deleteForeground(Job job);
    }

    private final Lister<Job> jobs;
    private final JobClient client;
    private final InstantSource clock;
    private final WorkQueue<String> queue = WorkQueue.withDefaultRateLimiter(NAME);
    private final QueueWorkers<String> workers = QueueWorkers.requeuingAfter(queue, this::sync);

    public TtlAfterFinishedController(ControllerContext context) {
        this(context.informers().lister(Job.class), apiClient(context.clientFor(SERVICE_ACCOUNT)), context.clock());
        context.informers().informer(Job.class).addEventHandler(EnqueueHandlers.onAddOrUpdate(this::enqueueIfNeeded));
    }

    TtlAfterFinishedController(Lister<Job> jobs, JobClient client, InstantSource clock) {
        this.jobs = requireNonNull(jobs, "jobs is null");
        this.client = requireNonNull(client, "client is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    private static JobClient apiClient(KubernetesClient client) {
        return new JobClient() {
            @Override
            public Optional<Job> get(String namespace, String name) {
                return Optional.ofNullable(client.batch().v1().jobs().inNamespace(namespace).withName(name).get());
            }

            @Override
            public void deleteForeground(Job job) {
                client.batch().v1().jobs().inNamespace(job.getMetadata().getNamespace()).resource(job)
                        .withPropagationPolicy(DeletionPropagation.FOREGROUND).delete();
            }
        };
    }

    @Override
    public void start(int workerCount) {
        workers.start(workerCount);
    }

    @Override
    public void close() {
        workers.close();
    }

    private void enqueueIfNeeded(Job job) {
        if (needsCleanup(job)) {
            queue.add(ObjectKeys.key(job));
        }
    }

    /**
     * Deletes the job if its TTL expired.
     *
     * @return how long until it expires, when it has not yet
     */
    Optional<Duration> sync(String key) {
        Optional<Job> cached = jobs.getByKey(key);
        if (cached.isEmpty() || !needsCleanup(cached.get())) {
            return Optional.empty();
        }
        Optional<Duration> left = timeLeft(cached.get(), clock.instant());
        if (left.isPresent()) {
            return left;
        }
        // The cache may be stale: the TTL could have been raised or removed since.
        Optional<Job> fresh = client.get(cached.get().getMetadata().getNamespace(), cached.get().getMetadata().getName());
        if (fresh.isEmpty() || !needsCleanup(fresh.get())) {
            return Optional.empty();
        }
        left = timeLeft(fresh.get(), clock.instant());
        if (left.isPresent()) {
            return left;
        }
        try {
            client.deleteForeground(fresh.get());
            LOG.info("deleted job {}: ttlSecondsAfterFinished expired", key);
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) {
                throw e;
            }
        }
        return Optional.empty();
    }

    /** A job with a TTL that finished and is not being deleted. */
    static boolean needsCleanup(Job job) {
        return job.getSpec() != null && job.getSpec().getTtlSecondsAfterFinished() != null && job.getMetadata().getDeletionTimestamp() == null
                && finishTime(job).isPresent();
    }

    private static Optional<Duration> timeLeft(Job job, Instant now) {
        Instant expiry = finishTime(job).orElseThrow().plusSeconds(job.getSpec().getTtlSecondsAfterFinished());
        Duration left = Duration.between(now, expiry);
        return left.isNegative() || left.isZero() ? Optional.empty() : Optional.of(left);
    }

    /** When the job's Complete or Failed condition became true: upstream's {@code jobFinishTime}. */
    static Optional<Instant> finishTime(Job job) {
        if (job.getStatus() == null || job.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        for (JobCondition condition : job.getStatus().getConditions()) {
            if (("Complete".equals(condition.getType()) || "Failed".equals(condition.getType())) && "True".equals(condition.getStatus())
                    && condition.getLastTransitionTime() != null) {
                return Optional.of(Instant.parse(condition.getLastTransitionTime()));
            }
        }
        return Optional.empty();
    }
}
