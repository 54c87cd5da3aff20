package io.k4j.controllers.dynamic;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.Preconditions;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.net.HttpURLConnection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;

/**
 * Reads and writes objects of any resource by its {@link ApiResource}, as client-go's dynamic client: the generic
 * fabric8 client for reads and patches, and plain requests where fabric8 has no call (deletes with full
 * {@code DeleteOptions}, deletecollection). Thread-safe.
 */
public final class DynamicClient {
    /** What upstream's metadata client accepts, JSON only: lists of objects' metadata, else the full objects. */
    private static final String METADATA_LIST_ACCEPT = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";

    private final KubernetesClient client;

    public DynamicClient(KubernetesClient client) {
        this.client = requireNonNull(client, "client is null");
    }

    public KubernetesClient client() {
        return client;
    }

    /** The object, or empty when it does not exist. */
    public Optional<GenericKubernetesResource> get(ApiResource resource, String namespace, String name) {
        return Optional.ofNullable(scoped(resource, namespace).withName(name).get());
    }

    /** Every object in {@code namespace} (all namespaces when null). */
    public List<GenericKubernetesResource> list(ApiResource resource, String namespace) {
        if (namespace == null || !resource.namespaced()) {
            return client.genericKubernetesResources(resource.definitionContext()).inAnyNamespace().list().getItems();
        }
        return client.genericKubernetesResources(resource.definitionContext()).inNamespace(namespace).list().getItems();
    }

    /** Applies a JSON merge patch; fails with the apiserver's status (409 when a resourceVersion in it is stale). */
    public GenericKubernetesResource mergePatch(ApiResource resource, String namespace, String name, String patch) {
        return scoped(resource, namespace).withName(name).patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    }

    /**
     * Deletes one object with {@code options} (propagation policy, preconditions); false when it was already gone.
     * A failed precondition is a 409 {@link KubernetesClientException}.
     */
    public boolean delete(ApiResource resource, String namespace, String name, DeleteOptions options) {
        return send("DELETE", resource.objectPath(namespace, name), options);
    }

    /**
     * Deletes every object of {@code resource} in {@code namespace} with one request; false when there was nothing to delete.
     * The answer lists what was deleted; as upstream's metadata client, this asks for their metadata only.
     */
    public boolean deleteCollection(ApiResource resource, String namespace, DeleteOptions options) {
        return request("DELETE", resource.collectionPath(namespace), options, METADATA_LIST_ACCEPT).isPresent();
    }

    /**
     * Sends {@code body} as JSON with {@code method} to {@code path} (e.g. a PUT to {@code namespaces/x/finalize});
     * returns the response body, empty on 404; other failures are {@link KubernetesClientException}s with the status.
     */
    public Optional<String> request(String method, String path, Object body) {
        return request(method, path, body, "application/json");
    }

    private Optional<String> request(String method, String path, Object body, String accept) {
        HttpClient http = client.getHttpClient();
        String base = client.getMasterUrl().toString();
        String url = base.endsWith("/") ? base.substring(0, base.length() - 1) + path : base + path;
        String json = client.getKubernetesSerialization().asJson(body);
        HttpRequest request = http.newHttpRequestBuilder().uri(url).method(method, "application/json", json).header("Accept", accept).build();
        try {
            HttpResponse<String> response = http.sendAsync(request, String.class).get();
            if (response.code() == HttpURLConnection.HTTP_NOT_FOUND) {
                return Optional.empty();
            }
            if (response.code() >= 300) {
                throw failure(response);
            }
            return Optional.ofNullable(response.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KubernetesClientException("interrupted during " + method + " " + path, e);
        } catch (ExecutionException e) {
            throw new KubernetesClientException(method + " " + path + " failed: " + e.getCause().getMessage(), e.getCause());
        }
    }

    private boolean send(String method, String path, DeleteOptions options) {
        return request(method, path, options).isPresent();
    }

    private KubernetesClientException failure(HttpResponse<String> response) {
        Status status;
        try {
            status = client.getKubernetesSerialization().unmarshal(response.body(), Status.class);
        } catch (RuntimeException e) {
            status = new Status();
            status.setCode(response.code());
            status.setMessage(response.body());
        }
        if (status.getCode() == null) {
            status.setCode(response.code());
        }
        return new KubernetesClientException(status);
    }

    /** Operations on one namespace, or on the cluster scope: fabric8 rejects a null namespace outright. */
    private NonNamespaceOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>> scoped(
            ApiResource resource, String namespace) {
        MixedOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>> all =
                client.genericKubernetesResources(resource.definitionContext());
        return resource.namespaced() ? all.inNamespace(namespace) : all;
    }

    /** Delete options with a propagation policy and, when given, uid and resourceVersion preconditions. */
    public static DeleteOptions deleteOptions(String propagationPolicy, String uid, String resourceVersion) {
        DeleteOptions options = new DeleteOptions();
        options.setApiVersion("v1");
        options.setKind("DeleteOptions");
        options.setPropagationPolicy(propagationPolicy);
        if (uid != null || resourceVersion != null) {
            options.setPreconditions(new Preconditions(resourceVersion, uid));
        }
        return options;
    }
}
