package io.k4j.controllers.namespace;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Namespace;
import io.k4j.controllers.dynamic.ApiResource;
import io.k4j.controllers.dynamic.DynamicClient;
import io.k4j.controllers.dynamic.ResourceDiscovery;
import java.util.List;

/** {@link NamespaceClient} over the apiserver, as the {@code namespace-controller} service account. Thread-safe. */
final class ApiNamespaceClient implements NamespaceClient {
    private final DynamicClient client;

    ApiNamespaceClient(DynamicClient client) {
        this.client = requireNonNull(client, "client is null");
    }

    @Override
    public ResourceDiscovery.Discovered discover() {
        return ResourceDiscovery.preferredTolerant(client.client());
    }

    @Override
    public void deleteCollection(ApiResource resource, String namespace) {
        client.deleteCollection(resource, namespace, DynamicClient.deleteOptions(null, null, null));
    }

    @Override
    public void delete(ApiResource resource, String namespace, String name) {
        client.delete(resource, namespace, name, DynamicClient.deleteOptions(null, null, null));
    }

    @Override
    public List<GenericKubernetesResource> list(ApiResource resource, String namespace) {
        return client.list(resource, namespace);
    }

    @Override
    public Namespace updateStatus(Namespace namespace) {
        return client.client().namespaces().resource(namespace).updateStatus();
    }

    @Override
    public void finalizeNamespace(Namespace namespace) {
        client.request("PUT", "/api/v1/namespaces/" + namespace.getMetadata().getName() + "/finalize", namespace);
    }
}
