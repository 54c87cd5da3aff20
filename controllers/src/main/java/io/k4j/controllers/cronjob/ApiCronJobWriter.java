package io.k4j.controllers.cronjob;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Optional;

/** {@link CronJobWriter} over the API as the cronjob controller's service account. Thread-safe. */
final class ApiCronJobWriter implements CronJobWriter {
    private final KubernetesClient client;

    ApiCronJobWriter(KubernetesClient client) {
        this.client = requireNonNull(client, "client is null");
    }

    @Override
    public CronJob updateStatus(CronJob cronJob) {
        return client.batch().v1().cronjobs().inNamespace(cronJob.getMetadata().getNamespace()).resource(cronJob).updateStatus();
    }

    @Override
    public Job createJob(Job job) {
        return client.batch().v1().jobs().inNamespace(job.getMetadata().getNamespace()).resource(job).create();
    }

    @Override
    public Optional<Job> getJob(String namespace, String name) {
        return Optional.ofNullable(client.batch().v1().jobs().inNamespace(namespace).withName(name).get());
    }

    @Override
    public void deleteJob(String namespace, String name) {
        client.batch().v1().jobs().inNamespace(namespace).withName(name).withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();
    }
}
