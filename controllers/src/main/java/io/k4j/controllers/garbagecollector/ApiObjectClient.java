package io.k4j.controllers.garbagecollector;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.k4j.controllers.dynamic.ApiResource;
import io.k4j.controllers.dynamic.DynamicClient;
import java.util.List;
import java.util.Optional;

/**
 * {@link ObjectClient} over the apiserver. Changes are JSON merge patches that carry the uid and resourceVersion they
 * were computed from, so a concurrent change is a 409 rather than a lost update (upstream patches the same way for
 * types without strategic merge). Thread-safe.
 */
final class ApiObjectClient implements ObjectClient {
    private final DynamicClient client;

    ApiObjectClient(DynamicClient client) {
        this.client = requireNonNull(client, "client is null");
    }

    @Override
    public Optional<ObjectMeta> get(ApiResource resource, String namespace, String name) {
        return client.get(resource, namespace, name).map(GenericKubernetesResource::getMetadata);
    }

    @Override
    public void delete(ApiResource resource, ObjectMeta latest, String propagationPolicy) {
        client.delete(resource, latest.getNamespace(), latest.getName(),
                DynamicClient.deleteOptions(propagationPolicy, latest.getUid(), latest.getResourceVersion()));
    }

    @Override
    public void setOwnerReferences(ApiResource resource, ObjectMeta latest, List<OwnerReference> ownerReferences) {
        ObjectNode patch = guardedPatch(latest);
        ObjectNode metadata = (ObjectNode) patch.get("metadata");
        if (ownerReferences.isEmpty()) {
            metadata.putNull("ownerReferences");
        } else {
            metadata.set("ownerReferences", client.client().getKubernetesSerialization().convertValue(ownerReferences, ArrayNode.class));
        }
        client.mergePatch(resource, latest.getNamespace(), latest.getName(), patch.toString());
    }

    @Override
    public void setFinalizers(ApiResource resource, ObjectMeta latest, List<String> finalizers) {
        ObjectNode patch = guardedPatch(latest);
        ObjectNode metadata = (ObjectNode) patch.get("metadata");
        if (finalizers.isEmpty()) {
            metadata.putNull("finalizers");
        } else {
            ArrayNode array = metadata.putArray("finalizers");
            finalizers.forEach(array::add);
        }
        client.mergePatch(resource, latest.getNamespace(), latest.getName(), patch.toString());
    }

    private static ObjectNode guardedPatch(ObjectMeta latest) {
        ObjectNode patch = JsonNodeFactory.instance.objectNode();
        patch.putObject("metadata").put("uid", latest.getUid()).put("resourceVersion", latest.getResourceVersion());
        return patch;
    }
}
