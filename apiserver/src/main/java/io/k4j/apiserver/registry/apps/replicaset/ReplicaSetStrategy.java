package io.k4j.apiserver.registry.apps.replicaset;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.generic.TableColumn;
import io.k4j.apiserver.registry.groups.Ages;
import io.k4j.apiserver.registry.groups.Json;
import io.k4j.apiserver.registry.groups.LabelSelectors;
import io.k4j.apiserver.registry.groups.PodTemplateRules;
import io.k4j.apiserver.registry.groups.SpecAndStatusStrategy;
import io.k4j.apiserver.registry.groups.Templates;
import io.k4j.apiserver.registry.groups.Validators;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The rules of apps/v1 ReplicaSets, as upstream's {@code pkg/registry/apps/replicaset/strategy.go} and
 * {@code ValidateReplicaSet}. Stateless and thread-safe.
 */
public final class ReplicaSetStrategy extends SpecAndStatusStrategy {
    private static final List<TableColumn> COLUMNS = List.of(
            TableColumn.nameColumn(),
            TableColumn.integer("Desired", "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1."),
            TableColumn.integer("Current", "Replicas is the most recently observed number of replicas."),
            TableColumn.integer("Ready", "The number of ready replicas for this replica set."),
            TableColumn.ageColumn(),
            TableColumn.wide("Containers", "Names of each container in the template."),
            TableColumn.wide("Images", "Images referenced by each container in the template."),
            TableColumn.wide("Selector", "Selector is a label query over pods that should match the replica count."));

    private final PodTemplateRules podTemplates;

    public ReplicaSetStrategy(ResourceType type, PodTemplateRules podTemplates, Ages ages) {
        super(type, ages);
        this.podTemplates = requireNonNull(podTemplates, "podTemplates is null");
    }

    @Override
    public void applyDefaults(ObjectNode object) {
        Json.putIfAbsent(Json.object(object, "spec"), "replicas", 1);
        podTemplates.applyDefaults(Templates.template(object));
    }

    @Override
    public FieldErrors validate(ObjectNode object) {
        return validateSpec(object);
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newObject, ObjectNode oldObject) {
        FieldErrors errors = validateSpec(newObject);
        LabelSelectors.immutable(errors, Json.at(newObject, "spec", "selector"), Json.at(oldObject, "spec", "selector"), "spec.selector");
        return errors;
    }

    private FieldErrors validateSpec(ObjectNode object) {
        FieldErrors errors = new FieldErrors();
        JsonNode spec = Json.at(object, "spec");
        Validators.nonNegative(errors, spec, "spec.replicas", "replicas");
        Validators.nonNegative(errors, spec, "spec.minReadySeconds", "minReadySeconds");
        // Upstream's message names deployments for replica sets too.
        Templates.validateSelector(errors, object, "deployment");
        if (LabelSelectors.isConvertible(Json.at(spec, "selector"))) {
            Templates.validateForReplicaSet(errors, object, podTemplates, "ReplicaSet");
        } else {
            errors.add(FieldError.invalid("spec.selector", Validators.display(Json.at(spec, "selector")), "invalid label selector"));
        }
        return errors;
    }

    /** Upstream's {@code ValidateReplicaSetStatusUpdate}. */
    public static FieldErrors validateStatusUpdate(ObjectNode newObject, ObjectNode oldObject) {
        FieldErrors errors = new FieldErrors();
        JsonNode status = Json.at(newObject, "status");
        for (String field : List.of("replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration")) {
            Validators.nonNegative(errors, status, "status." + field, field);
        }
        long replicas = Json.longValue(status, "replicas");
        for (String field : List.of("fullyLabeledReplicas", "readyReplicas", "availableReplicas")) {
            long value = Json.longValue(status, field);
            if (value > replicas) {
                errors.add(FieldError.invalid("status." + field, value, "cannot be greater than status.replicas"));
            }
        }
        if (Json.longValue(status, "availableReplicas") > Json.longValue(status, "readyReplicas")) {
            errors.add(FieldError.invalid("status.availableReplicas", Json.longValue(status, "availableReplicas"), "cannot be greater than readyReplicas"));
        }
        return errors;
    }

    @Override
    public Map<String, String> selectableFields(ObjectNode object) {
        return Map.of("status.replicas", String.valueOf(Json.longValue(object, "status", "replicas")));
    }

    @Override
    public List<TableColumn> tableColumns() {
        return COLUMNS;
    }

    @Override
    public List<Object> tableRow(ObjectNode object) {
        List<Object> cells = new ArrayList<>();
        cells.add(Json.string(object, "metadata", "name"));
        cells.add(Json.longValue(object, "spec", "replicas"));
        cells.add(Json.longValue(object, "status", "replicas"));
        cells.add(Json.longValue(object, "status", "readyReplicas"));
        cells.add(ages.since(Json.text(object, "metadata", "creationTimestamp")));
        cells.addAll(Templates.containerCells(Json.at(object, "spec", "template", "spec")));
        cells.add(LabelSelectors.format(Json.at(object, "spec", "selector")));
        return cells;
    }
}
