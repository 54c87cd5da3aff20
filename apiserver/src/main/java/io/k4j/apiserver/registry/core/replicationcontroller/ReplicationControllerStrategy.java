package io.k4j.apiserver.registry.core.replicationcontroller;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.core.CoreResources;
import io.k4j.apiserver.registry.core.GoValues;
import io.k4j.apiserver.registry.core.Printing;
import io.k4j.apiserver.registry.core.Trees;
import io.k4j.apiserver.registry.core.Updates;
import io.k4j.apiserver.registry.core.pod.PodSpecDefaults;
import io.k4j.apiserver.registry.core.pod.PodSpecValidation;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.StatusStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;

/**
 * The rules of replication controllers, as upstream's {@code rcStrategy}: the selector and labels default to the
 * template's labels and replicas to 1; status belongs to the controller; generation counts spec changes; the selector
 * must select the template, whose restart policy must be Always. Thread-safe.
 */
public final class ReplicationControllerStrategy implements ResourceStrategy {
    private static final ResourceType TYPE = CoreResources.type("replicationcontrollers");
    static final List<TableColumn> COLUMNS = List.of(
            TableColumn.nameColumn(),
            TableColumn.integer("Desired", "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller"),
            TableColumn.integer("Current", "Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller"),
            TableColumn.integer("Ready", "The number of ready replicas for this replication controller."),
            TableColumn.ageColumn(),
            TableColumn.wide("Containers", "Names of each container in the template."),
            TableColumn.wide("Images", "Images referenced by each container in the template."),
            TableColumn.wide("Selector", "Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"));

    private final InstantSource clock;

    public ReplicationControllerStrategy(InstantSource clock) {
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** The {@code replicationcontrollers/status} strategy: the spec is kept, counts must be non-negative. */
    public ResourceStrategy statusStrategy() {
        return new StatusStrategy(this, (newController, oldController) -> {
            FieldErrors errors = new FieldErrors();
            for (String field : List.of("replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration")) {
                long value = Trees.integer(newController, "status", field);
                if (value < 0) {
                    errors.add(FieldError.invalid("status." + field, value, "must be greater than or equal to 0"));
                }
            }
            return errors;
        }, false);
    }

    @Override
    public ResourceType type() {
        return TYPE;
    }

    @Override
    public void applyDefaults(ObjectNode controller) {
        ObjectNode spec = Trees.object(controller, "spec");
        JsonNode templateLabels = Trees.at(spec, "template", "metadata", "labels");
        if (templateLabels.isObject()) {
            if (Trees.size(spec, "selector") == 0) {
                spec.set("selector", templateLabels.deepCopy());
            }
            if (Trees.size(controller, "metadata", "labels") == 0) {
                Trees.object(controller, "metadata").set("labels", templateLabels.deepCopy());
            }
        }
        Trees.defaultInteger(spec, "replicas", 1);
        if (spec.get("template") instanceof ObjectNode template) {
            PodSpecDefaults.applyToTemplate(template);
        }
    }

    @Override
    public void prepareForCreate(ObjectNode controller) {
        controller.putObject("status").put("replicas", 0);
        Updates.initialGeneration(controller);
    }

    @Override
    public void prepareForUpdate(ObjectNode newController, ObjectNode oldController) {
        Updates.copyField(oldController, newController, "status");
        Updates.bumpGenerationIfChanged(newController, oldController, "spec");
    }

    @Override
    public FieldErrors validate(ObjectNode controller) {
        FieldErrors errors = new FieldErrors();
        JsonNode spec = Trees.at(controller, "spec");
        JsonNode selector = Trees.at(spec, "selector");
        long minReadySeconds = Trees.integer(spec, "minReadySeconds");
        if (minReadySeconds < 0) {
            errors.add(FieldError.invalid("spec.minReadySeconds", minReadySeconds, "must be greater than or equal to 0"));
        }
        if (Trees.size(spec, "selector") == 0) {
            errors.add(FieldError.required("spec.selector", ""));
        }
        long replicas = Trees.integer(spec, "replicas");
        if (replicas < 0) {
            errors.add(FieldError.invalid("spec.replicas", replicas, "must be greater than or equal to 0"));
        }
        JsonNode template = Trees.at(spec, "template");
        if (!template.isObject()) {
            errors.add(FieldError.required("spec.template", ""));
            return errors;
        }
        JsonNode labels = Trees.at(template, "metadata", "labels");
        if (Trees.size(spec, "selector") > 0) {
            boolean matches = true;
            for (Map.Entry<String, JsonNode> entry : selector.properties()) {
                matches &= entry.getValue().asText().equals(Trees.text(labels, entry.getKey()));
            }
            if (!matches) {
                errors.add(FieldError.invalid("spec.template.metadata.labels", GoValues.stringMap(labels), "`selector` does not match template `labels`"));
            }
        }
        errors.addAll(PodSpecValidation.validateTemplate(template, "spec.template"));
        String restartPolicy = Trees.text(template, "spec", "restartPolicy");
        if (!restartPolicy.isEmpty() && !restartPolicy.equals("Always")) {
            errors.add(FieldError.notSupported("spec.template.spec.restartPolicy", restartPolicy, List.of("Always")));
        }
        if (Trees.has(template, "spec", "activeDeadlineSeconds")) {
            errors.add(FieldError.forbidden("spec.template.spec.activeDeadlineSeconds", "activeDeadlineSeconds in ReplicationController is not Supported"));
        }
        return errors;
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newController, ObjectNode oldController) {
        return validate(newController);
    }

    @Override
    public Map<String, String> selectableFields(ObjectNode controller) {
        return Map.of("status.replicas", Long.toString(Trees.integer(controller, "status", "replicas")));
    }

    @Override
    public List<TableColumn> tableColumns() {
        return COLUMNS;
    }

    @Override
    public List<Object> tableRow(ObjectNode controller) {
        String[] containers = Printing.containerCells(Trees.at(controller, "spec", "template", "spec"));
        return List.of(
                Trees.text(controller, "metadata", "name"),
                Trees.integer(controller, "spec", "replicas"),
                Trees.integer(controller, "status", "replicas"),
                Trees.integer(controller, "status", "readyReplicas"),
                Printing.since(Trees.at(controller, "metadata", "creationTimestamp"), clock.instant()),
                containers[0],
                containers[1],
                Printing.formatLabels(Trees.at(controller, "spec", "selector")));
    }
}
