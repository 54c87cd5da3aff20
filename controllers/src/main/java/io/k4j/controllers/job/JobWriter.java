package io.k4j.controllers.job;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.Optional;

/**
 * The Job writes and fresh reads the Job controller makes, behind an interface so unit tests can record them.
 * Implementations are thread-safe.
 */
interface JobWriter {
    /**
     * Replaces {@code job}'s status (PUT {@code jobs/status} with its resourceVersion).
     *
     * @return the job as stored
     * @throws io.fabric8.kubernetes.client.KubernetesClientException on a conflict or another rejection
     */
    Job updateStatus(Job job);

    /** The job as the apiserver has it now (not the cache), empty when it is gone. */
    Optional<Job> get(String namespace, String name);
}
