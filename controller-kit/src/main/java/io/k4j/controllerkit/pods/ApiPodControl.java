package io.k4j.controllerkit.pods;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.k4j.controllerkit.events.EventRecorder;
import io.k4j.controllerkit.patch.NamedPatch;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

/** Pod writes through the API, with upstream's events (SuccessfulCreate, FailedCreate, SuccessfulDelete, FailedDelete). Thread-safe. */
public final class ApiPodControl implements PodControl {
    private final KubernetesClient client;
    private final EventRecorder events;

    public ApiPodControl(KubernetesClient client, EventRecorder events) {
        this.client = requireNonNull(client, "client is null");
        this.events = requireNonNull(events, "events is null");
    }

    @Override
    public Pod createPod(String namespace, PodTemplateSpec template, HasMetadata controller, OwnerReference controllerRef) {
        return createPod(namespace, podFromTemplate(template, controller, controllerRef), controller);
    }

    @Override
    public Pod createPod(String namespace, Pod pod, HasMetadata controller) {
        try {
            Pod created = client.pods().inNamespace(namespace).resource(pod).create();
            events.event(controller, EventRecorder.NORMAL, "SuccessfulCreate", "Created pod: " + created.getMetadata().getName());
            return created;
        } catch (KubernetesClientException e) {
            events.event(controller, EventRecorder.WARNING, "FailedCreate", "Error creating: " + message(e));
            throw e;
        }
    }

    @Override
    public boolean deletePod(String namespace, String name, HasMetadata controller) {
        try {
            boolean deleted = !client.pods().inNamespace(namespace).withName(name).delete().isEmpty();
            if (deleted) {
                events.event(controller, EventRecorder.NORMAL, "SuccessfulDelete", "Deleted pod: " + name);
            }
            return deleted;
        } catch (KubernetesClientException e) {
            if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
                return false;
            }
            events.event(controller, EventRecorder.WARNING, "FailedDelete", "Error deleting: " + message(e));
            throw e;
        }
    }

    @Override
    public void patchPod(String namespace, String name, String strategicMergePatch) {
        NamedPatch.strategicMerge(client.pods(), Pod::new, namespace, name, strategicMergePatch);
    }

    /**
     * The pod a controller creates from its template, as upstream's {@code GetPodFromTemplate}: the template's labels,
     * annotations, finalizers and spec, {@code generateName} from the controller's name, and the controller reference.
     */
    public static Pod podFromTemplate(PodTemplateSpec template, HasMetadata controller, OwnerReference controllerRef) {
        ObjectMeta templateMeta = template.getMetadata() == null ? new ObjectMeta() : template.getMetadata();
        String prefix = controller.getMetadata().getName() + "-";
        // Upstream trims the prefix so that generated names stay valid DNS subdomains.
        if (prefix.length() > 58) {
            prefix = prefix.substring(0, 58);
        }
        List<OwnerReference> owners = new ArrayList<>();
        if (controllerRef != null) {
            owners.add(controllerRef);
        }
        return new PodBuilder()
                .withNewMetadata()
                .withGenerateName(prefix)
                .withLabels(templateMeta.getLabels() == null ? null : new HashMap<>(templateMeta.getLabels()))
                .withAnnotations(templateMeta.getAnnotations() == null ? null : new HashMap<>(templateMeta.getAnnotations()))
                .withFinalizers(templateMeta.getFinalizers() == null ? null : new ArrayList<>(templateMeta.getFinalizers()))
                .withOwnerReferences(owners)
                .endMetadata()
                // The builder copies nested objects, so the informer cache's template is never shared with the new pod.
                .withSpec(template.getSpec() == null ? null : new PodSpecBuilder(template.getSpec()).build())
                .build();
    }

    private static String message(KubernetesClientException e) {
        return e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage() : e.getMessage();
    }
}
