package io.k4j.controllers.job;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Optional;

/** {@link JobWriter} over the API as the job controller's service account. Thread-safe. */
final class ApiJobWriter implements JobWriter {
    private final KubernetesClient client;

    ApiJobWriter(KubernetesClient client) {
        this.client = requireNonNull(client, "client is null");
    }

    @Override
    public Job updateStatus(Job job) {
        return client.batch().v1().jobs().inNamespace(job.getMetadata().getNamespace()).resource(job).updateStatus();
    }

    @Override
    public Optional<Job> get(String namespace, String name) {
        return Optional.ofNullable(client.batch().v1().jobs().inNamespace(namespace).withName(name).get());
    }
}
