package io.k4j.apiserver.registry.scale;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.apply.FieldManager;
import io.k4j.api.apply.FieldSet;
import io.k4j.api.apply.ManagedFields;
import io.k4j.api.apply.Shapes;
import io.k4j.api.errors.StatusException;
import io.k4j.api.resource.GroupVersionKind;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.generic.OperationContext;
import io.k4j.apiserver.registry.generic.SubresourceHandler;
import io.k4j.apiserver.registry.groups.Json;
import io.k4j.apiserver.registry.groups.LabelSelectors;
import io.k4j.apiserver.registry.groups.Validators;
import java.time.InstantSource;
import java.util.function.UnaryOperator;

/**
 * The {@code scale} subresource of replicated workloads, as upstream's {@code ScaleREST}: reads and writes an
 * autoscaling/v1 {@code Scale} whose {@code spec.replicas} is the parent's {@code spec.replicas}. A Scale carrying
 * a resourceVersion other than the parent's current one is refused with 409, so clients that read, modify and
 * write never overwrite a concurrent change. Writes keep the parent's managed fields, and server-side apply to the
 * Scale works, through {@link ScaleManagedFields}. Thread-safe.
 */
public final class ScaleSubresource implements SubresourceHandler {
    private static final FieldManager.Target TARGET =
            new FieldManager.Target(new GroupVersionKind("autoscaling", "v1", "Scale"), "scale", new FieldSet());

    private final SelectorForm selectorForm;
    private final InstantSource clock;
    private volatile FieldManager fieldManager;

    /** How the parent's {@code spec.selector} is written. */
    public enum SelectorForm {
        /** A {@code metav1.LabelSelector} (deployments, replica sets, stateful sets). */
        LABEL_SELECTOR,
        /** A plain label map (core replication controllers). */
        LABEL_MAP
    }

    public ScaleSubresource(SelectorForm selectorForm) {
        this(selectorForm, InstantSource.system());
    }

    /** @param clock the time recorded in managed fields */
    public ScaleSubresource(SelectorForm selectorForm, InstantSource clock) {
        this.selectorForm = requireNonNull(selectorForm, "selectorForm is null");
        this.clock = requireNonNull(clock, "clock is null");
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
        validate(request.name(), body);
        long desired = Json.longValue(body, "spec", "replicas");
        String expectedVersion = Json.string(body, "metadata", "resourceVersion");
        ResourceType parentType = request.parent().type();
        boolean tracked = request.fieldOwnership() instanceof OperationContext.FieldOwnership.Updated;
        return write(request, tracked, scale -> {
            checkVersion(parentType, request.name(), expectedVersion, scale);
            ObjectNode updated = scale.deepCopy();
            Json.object(updated, "spec").put("replicas", desired);
            if (request.fieldOwnership() instanceof OperationContext.FieldOwnership.Updated updater) {
                fieldManager().update(scale, updated, TARGET, updater.manager());
            }
            return updated;
        });
    }

    /**
     * Server-side apply to the Scale, as upstream: the parent's managers of {@code spec.replicas} are the Scale's, the
     * configuration is applied to the Scale (conflicting with them unless forced), and the outcome goes back to the
     * parent's {@code spec.replicas} and managed fields, where the applier then owns {@code spec.replicas} with
     * subresource {@code scale}.
     */
    @Override
    public ObjectNode apply(Request request, ObjectNode configuration, String manager, boolean force) {
        String expectedVersion = Json.string(configuration, "metadata", "resourceVersion");
        ResourceType parentType = request.parent().type();
        return write(request, true, scale -> {
            checkVersion(parentType, request.name(), expectedVersion, scale);
            ObjectNode applied = fieldManager().apply(scale, configuration.deepCopy(), TARGET, manager, force);
            validate(request.name(), applied);
            return applied;
        });
    }

    /**
     * Changes the parent through its Scale: {@code change} gets the current Scale with the managed fields the parent's
     * convert to, and returns the new one; its replicas, and when {@code tracked} its managed fields, go back to the
     * parent (untracked writes, such as in-process ones, leave the parent's managed fields as they are).
     */
    private ObjectNode write(Request request, boolean tracked, UnaryOperator<ObjectNode> change) {
        UnaryOperator<ObjectNode> onParent = parent -> {
            ScaleManagedFields conversion = new ScaleManagedFields(Json.string(parent, "apiVersion").isEmpty()
                    ? request.parent().type().gvk().apiVersion() : Json.string(parent, "apiVersion"));
            ManagedFields parentManaged = managedFields(parent);
            ObjectNode scale = scaleOf(parent);
            ManagedFields scaleManaged = conversion.toSubresource(parentManaged);
            if (!scaleManaged.isEmpty()) {
                Json.object(scale, "metadata").set("managedFields", scaleManaged.encode());
            }
            ObjectNode changed = change.apply(scale);
            Json.object(parent, "spec").put("replicas", Json.longValue(changed, "spec", "replicas"));
            if (tracked && (changed.path("metadata").has("managedFields") || !parentManaged.isEmpty())) {
                ManagedFields written = conversion.toParent(parentManaged, managedFields(changed));
                ObjectNode metadata = Json.object(parent, "metadata");
                if (written.isEmpty()) {
                    metadata.remove("managedFields");
                } else {
                    metadata.set("managedFields", written.encode());
                }
            }
            return parent;
        };
        if (request.dryRun()) {
            return scaleOf(onParent.apply(request.parent().get(request.namespace(), request.name())));
        }
        return scaleOf(request.parent().guaranteedUpdate(request.namespace(), request.name(), "", onParent));
    }

    private static void validate(String name, ObjectNode scale) {
        FieldErrors errors = new FieldErrors();
        JsonNode replicas = Json.at(scale, "spec", "replicas");
        if (!replicas.isMissingNode() && !replicas.isNull() && !replicas.isIntegralNumber()) {
            errors.add(FieldError.invalid("spec.replicas", Validators.display(replicas), "must be an integer"));
        }
        Validators.nonNegative(errors, scale, "spec.replicas", "spec", "replicas");
        if (!errors.isEmpty()) {
            throw StatusException.invalid("autoscaling", "Scale", name, errors);
        }
    }

    private static ManagedFields managedFields(ObjectNode object) {
        JsonNode managed = object.path("metadata").get("managedFields");
        if (managed == null || managed.isNull()) {
            return new ManagedFields();
        }
        try {
            return ManagedFields.decode(managed);
        } catch (IllegalArgumentException undecodable) {
            // as the field manager does: managed fields that cannot be decoded are replaced
            return new ManagedFields();
        }
    }

    private FieldManager fieldManager() {
        FieldManager manager = fieldManager;
        if (manager == null) {
            // the shapes take a while to build: only on the first write that needs them
            manager = new FieldManager(Shapes.builtin(), clock);
            fieldManager = manager;
        }
        return manager;
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
