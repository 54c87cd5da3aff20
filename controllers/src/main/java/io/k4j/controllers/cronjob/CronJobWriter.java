package io.k4j.controllers.cronjob;

import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.Optional;

/** The writes and fresh reads of the CronJob controller, behind an interface so unit tests can record them. Implementations are thread-safe. */
interface CronJobWriter {
    /** Replaces the CronJob's status; throws on a conflict. */
    CronJob updateStatus(CronJob cronJob);

    /** Creates the job; throws {@code KubernetesClientException} with code 409 when it exists. */
    Job createJob(Job job);

    /** The job as stored now, empty when absent. */
    Optional<Job> getJob(String namespace, String name);

    /** Deletes the job and, in the background, its pods. */
    void deleteJob(String namespace, String name);
}
