package io.k4j.scheduler;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.k4j.controllerkit.events.EventRecorder;
import io.k4j.scheduler.framework.SchedulerClient;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;

/**
 * The scheduler's writes over the apiserver's REST API: {@code pods/binding}, pod deletion with a UID precondition,
 * strategic-merge patches of {@code pods/status}, and Events through the controller-kit's recorder. Thread-safe.
 */
public final class ApiSchedulerClient implements SchedulerClient {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final HttpClient httpClient;
    private final String baseUrl;
    private final EventRecorder events;

    public ApiSchedulerClient(KubernetesClient client, EventRecorder events) {
        requireNonNull(client, "client is null");
        this.httpClient = client.getHttpClient();
        String master = client.getMasterUrl().toString();
        this.baseUrl = master.endsWith("/") ? master.substring(0, master.length() - 1) : master;
        this.events = requireNonNull(events, "events is null");
    }

    private String podUrl(Pod pod, String subresource) {
        return baseUrl + "/api/v1/namespaces/" + encode(pod.getMetadata().getNamespace()) + "/pods/" + encode(pod.getMetadata().getName())
                + (subresource.isEmpty() ? "" : "/" + subresource);
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    @Override
    public void bind(Pod pod, String nodeName) {
        ObjectNode binding = MAPPER.createObjectNode().put("apiVersion", "v1").put("kind", "Binding");
        ObjectNode metadata = binding.putObject("metadata").put("name", pod.getMetadata().getName()).put("namespace", pod.getMetadata().getNamespace());
        if (pod.getMetadata().getUid() != null) {
            metadata.put("uid", pod.getMetadata().getUid());
        }
        binding.putObject("target").put("apiVersion", "v1").put("kind", "Node").put("name", nodeName);
        HttpResponse<String> response = send(httpClient.newHttpRequestBuilder().uri(podUrl(pod, "binding")).post("application/json", binding.toString()).build());
        if (!response.isSuccessful()) {
            throw new SchedulerClientException(response.code(), "binding pod " + pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName()
                    + " to " + nodeName + " failed: " + response.body(), null);
        }
    }

    @Override
    public void deletePod(Pod pod) {
        ObjectNode options = MAPPER.createObjectNode().put("apiVersion", "v1").put("kind", "DeleteOptions");
        if (pod.getMetadata().getUid() != null) {
            options.putObject("preconditions").put("uid", pod.getMetadata().getUid());
        }
        HttpResponse<String> response = send(httpClient.newHttpRequestBuilder().uri(podUrl(pod, "")).method("DELETE", "application/json", options.toString()).build());
        if (!response.isSuccessful() && response.code() != 404 && response.code() != 409) {
            throw new SchedulerClientException(response.code(), "deleting pod " + pod.getMetadata().getName() + " failed: " + response.body(), null);
        }
    }

    @Override
    public void patchPodStatus(Pod pod, PodCondition condition, String nominatedNodeName) {
        ObjectNode patch = MAPPER.createObjectNode();
        ObjectNode status = patch.putObject("status");
        if (condition != null) {
            status.putArray("conditions").add(MAPPER.valueToTree(condition));
        }
        if (nominatedNodeName != null) {
            if (nominatedNodeName.isEmpty()) {
                status.putNull("nominatedNodeName");
            } else {
                status.put("nominatedNodeName", nominatedNodeName);
            }
        }
        String body;
        try {
            body = MAPPER.writeValueAsString(patch);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        HttpResponse<String> response = send(httpClient.newHttpRequestBuilder().uri(podUrl(pod, "status"))
                .method("PATCH", "application/strategic-merge-patch+json", body).build());
        if (!response.isSuccessful() && response.code() != 404) {
            throw new SchedulerClientException(response.code(), "patching the status of pod " + pod.getMetadata().getName() + " failed: " + response.body(), null);
        }
    }

    @Override
    public void recordEvent(Pod regarding, String type, String reason, String action, String message) {
        Pod reference = regarding;
        if (reference.getKind() == null || reference.getApiVersion() == null) {
            reference = new io.fabric8.kubernetes.api.model.PodBuilder().withApiVersion("v1").withKind("Pod").withMetadata(regarding.getMetadata()).build();
        }
        events.event(reference, type, reason, message);
    }

    private HttpResponse<String> send(HttpRequest request) {
        try {
            return httpClient.sendAsync(request, String.class).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SchedulerClientException(0, "interrupted", e);
        } catch (ExecutionException e) {
            throw new SchedulerClientException(0, "request to the apiserver failed: " + e.getCause(), e.getCause());
        }
    }
}
