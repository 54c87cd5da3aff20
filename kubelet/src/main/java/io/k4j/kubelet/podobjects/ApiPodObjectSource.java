package io.k4j.kubelet.podobjects;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link PodObjectSource} over the apiserver with the node's client ({@code system:node:<name>}): ConfigMaps and
 * Secrets are read by name (the Node authorizer allows exactly those the node's pods reference), tokens are requested
 * through {@code serviceaccounts/token}, and Services come from one informer over all namespaces, as upstream's
 * kubelet service lister. Thread-safe; {@link #close()} stops the informer.
 */
public final class ApiPodObjectSource implements PodObjectSource, AutoCloseable {
    private static final long SERVICE_SYNC_TIMEOUT_SECONDS = 30;

    private final KubernetesClient client;
    private volatile SharedIndexInformer<Service> services;

    public ApiPodObjectSource(KubernetesClient client) {
        this.client = requireNonNull(client, "client is null");
    }

    @Override
    public Optional<ConfigMap> configMap(String namespace, String name) throws IOException {
        try {
            return Optional.ofNullable(client.configMaps().inNamespace(namespace).withName(name).get());
        } catch (KubernetesClientException e) {
            throw failure(e);
        }
    }

    @Override
    public Optional<Secret> secret(String namespace, String name) throws IOException {
        try {
            return Optional.ofNullable(client.secrets().inNamespace(namespace).withName(name).get());
        } catch (KubernetesClientException e) {
            throw failure(e);
        }
    }

    @Override
    public List<Service> services(String namespace) throws IOException {
        SharedIndexInformer<Service> informer = serviceInformer();
        return informer.getStore().list().stream()
                .filter(service -> namespace.equals(service.getMetadata().getNamespace()))
                .toList();
    }

    @Override
    public TokenRequest requestToken(String namespace, String serviceAccountName, TokenRequest request) throws IOException {
        try {
            return client.serviceAccounts().inNamespace(namespace).withName(serviceAccountName).tokenRequest(request);
        } catch (KubernetesClientException e) {
            throw failure(e);
        }
    }

    @Override
    public synchronized void close() {
        if (services != null) {
            services.close();
            services = null;
        }
    }

    private synchronized SharedIndexInformer<Service> serviceInformer() throws IOException {
        if (services == null) {
            try {
                services = client.services().inAnyNamespace().inform();
            } catch (KubernetesClientException e) {
                throw failure(e);
            }
        }
        if (!services.hasSynced()) {
            try {
                services.start().toCompletableFuture().get(SERVICE_SYNC_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted waiting for the services to be listed", e);
            } catch (ExecutionException | TimeoutException e) {
                throw new IOException("failed to list services when setting up env vars", e);
            }
        }
        return services;
    }

    /** The apiserver's own message (e.g. {@code configmaps "x" is forbidden: …}) rather than the client's wrapping. */
    private static IOException failure(KubernetesClientException e) {
        String message = e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage() : e.getMessage();
        return new IOException(message, e);
    }
}
