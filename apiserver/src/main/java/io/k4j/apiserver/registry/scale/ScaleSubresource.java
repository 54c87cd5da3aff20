package io.k4j.apiserver.registry.scale;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.generic.SubresourceHandler;
import io.k4j.apiserver.registry.groups.Json;
import io.k4j.apiserver.registry.groups.LabelSelectors;
import io.k4j.apiserver.registry.groups.Validators;

/**
 * The {@code scale} subresource of replicated workloads, as upstream's {@code ScaleREST}: reads and writes an
 * autoscaling/v1 {@code Scale} whose {@code spec.replicas} is the parent's {@code spec.replicas}. A Scale carrying
 * a resourceVersion other than the parent's current one is refused with 409, so clients that read, modify and
 * write never overwrite a concurrent change. Thread-safe.
 */
public final class ScaleSubresource implements SubresourceHandler {
    private final SelectorForm selectorForm;

    /** How the parent's {@code spec.selector} is written. */
    public enum SelectorForm {
        /** A {@code metav1.LabelSelector} (deployments, replica sets, stateful sets). */
        LABEL_SELECTOR,
        /** A plain label map (core replication controllers). */
        LABEL_MAP
    }

    public ScaleSubresource(SelectorForm selectorForm) {
        this.selectorForm = requireNonNull(selectorForm, "selectorForm is null");
    }

    /** For parents whose selector is a {@code metav1.LabelSelector}. */
    public static ScaleSubresource forLabelSelector() {
        return new ScaleSubresource(SelectorForm.LABEL_SELECTOR);
    }

    /** For replication controllers, whose selector is a label map. */
    public static ScaleSubresource forLabelMap() {
        return new ScaleSubresource(SelectorForm.LABEL_MAP);
    }

    @Override
    public String subresource() {
        return "scale";
    }

    @Override
    public String apiVersion() {
        return "autoscaling/v1";
    }

    @Override
    public String kind() {
        return "Scale";
    }

    @Override
    public ObjectNode get(Request request) {
        return scaleOf(request.parent().get(request.namespace(), request.name()));
    }

    @Override
    public ObjectNode update(Request request, ObjectNode body) {
        FieldErrors errors = new FieldErrors();
        JsonNode replicas = Json.at(body, "spec", "replicas");
        if (!replicas.isMissingNode() && !replicas.isNull() && !replicas.isIntegralNumber()) {
            errors.add(FieldError.invalid("spec.replicas", Validators.display(replicas), "must be an integer"));
        }
        Validators.nonNegative(errors, body, "spec.replicas", "spec", "replicas");
        if (!errors.isEmpty()) {
            throw StatusException.invalid("autoscaling", "Scale", request.name(), errors);
        }
        long desired = Json.longValue(body, "spec", "replicas");
        String expectedVersion = Json.string(body, "metadata", "resourceVersion");
        ResourceType parentType = request.parent().type();
        if (request.dryRun()) {
            ObjectNode current = request.parent().get(request.namespace(), request.name());
            checkVersion(parentType, request.name(), expectedVersion, current);
            Json.object(current, "spec").put("replicas", desired);
            return scaleOf(current);
        }
        ObjectNode updated = request.parent().guaranteedUpdate(request.namespace(), request.name(), "", current -> {
            checkVersion(parentType, request.name(), expectedVersion, current);
            Json.object(current, "spec").put("replicas", desired);
            return current;
        });
        return scaleOf(updated);
    }

    private static void checkVersion(ResourceType parentType, String name, String expectedVersion, ObjectNode current) {
        if (!expectedVersion.isEmpty() && !expectedVersion.equals(Json.string(current, "metadata", "resourceVersion"))) {
            throw StatusException.conflict(parentType.gvk().group(), parentType.plural(), name, StatusException.OBJECT_MODIFIED);
        }
    }

    /** The Scale of a parent object: its identity, desired and observed replicas, and its selector as a string. */
    public ObjectNode scaleOf(ObjectNode parent) {
        ObjectNode scale = Json.newObject();
        scale.put("kind", "Scale");
        scale.put("apiVersion", "autoscaling/v1");
        ObjectNode metadata = scale.putObject("metadata");
        for (String field : new String[] {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"}) {
            String value = Json.text(parent, "metadata", field);
            if (value != null) {
                metadata.put(field, value);
            }
        }
        scale.putObject("spec").put("replicas", Json.longValue(parent, "spec", "replicas"));
        ObjectNode status = scale.putObject("status");
        status.put("replicas", Json.longValue(parent, "status", "replicas"));
        String selector = switch (selectorForm) {
            case LABEL_SELECTOR -> LabelSelectors.render(Json.at(parent, "spec", "selector")).orElse("");
            case LABEL_MAP -> LabelSelectors.renderSet(Json.stringMap(parent, "spec", "selector"));
        };
        if (!selector.isEmpty()) {
            status.put("selector", selector);
        }
        return scale;
    }
}
