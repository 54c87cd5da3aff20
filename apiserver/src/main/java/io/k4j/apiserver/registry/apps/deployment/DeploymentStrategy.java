package io.k4j.apiserver.registry.apps.deployment;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.generic.TableColumn;
import io.k4j.apiserver.registry.groups.Ages;
import io.k4j.apiserver.registry.groups.Generations;
import io.k4j.apiserver.registry.groups.IntOrPercent;
import io.k4j.apiserver.registry.groups.Json;
import io.k4j.apiserver.registry.groups.LabelSelectors;
import io.k4j.apiserver.registry.groups.PodTemplateRules;
import io.k4j.apiserver.registry.groups.SpecAndStatusStrategy;
import io.k4j.apiserver.registry.groups.Templates;
import io.k4j.apiserver.registry.groups.Validators;
import java.util.ArrayList;
import java.util.List;

/**
 * The rules of apps/v1 Deployments, as upstream's {@code pkg/registry/apps/deployment/strategy.go}, the apps/v1
 * defaults and {@code ValidateDeployment}. Stateless and thread-safe.
 */
public final class DeploymentStrategy extends SpecAndStatusStrategy {
    private static final List<TableColumn> COLUMNS = List.of(
            TableColumn.nameColumn(),
            TableColumn.string("Ready", "Number of the pod with ready state"),
            TableColumn.string("Up-to-date", "Total number of non-terminated pods targeted by this deployment that have the desired template spec."),
            TableColumn.string("Available", "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment."),
            TableColumn.ageColumn(),
            TableColumn.wide("Containers", "Names of each container in the template."),
            TableColumn.wide("Images", "Images referenced by each container in the template."),
            TableColumn.wide("Selector", "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment."));

    private final PodTemplateRules podTemplates;

    public DeploymentStrategy(ResourceType type, PodTemplateRules podTemplates, Ages ages) {
        super(type, ages);
        this.podTemplates = requireNonNull(podTemplates, "podTemplates is null");
    }

    @Override
    public void applyDefaults(ObjectNode object) {
        ObjectNode spec = Json.object(object, "spec");
        Json.putIfAbsent(spec, "replicas", 1);
        ObjectNode strategy = Json.object(spec, "strategy");
        Json.putIfAbsent(strategy, "type", "RollingUpdate");
        if (Json.string(strategy, "type").equals("RollingUpdate")) {
            ObjectNode rollingUpdate = Json.object(strategy, "rollingUpdate");
            Json.putIfAbsent(rollingUpdate, "maxUnavailable", "25%");
            Json.putIfAbsent(rollingUpdate, "maxSurge", "25%");
        }
        Json.putIfAbsent(spec, "revisionHistoryLimit", 10);
        Json.putIfAbsent(spec, "progressDeadlineSeconds", 600);
        podTemplates.applyDefaults(Templates.template(object));
    }

    @Override
    public void prepareForUpdate(ObjectNode newObject, ObjectNode oldObject) {
        Generations.copyField(newObject, oldObject, "status");
        // Annotations are copied from deployments to their replica sets, so changing them is a new generation too.
        boolean changed = !Json.semanticEquals(newObject.get("spec"), oldObject.get("spec"))
                || !Json.semanticEquals(Json.at(newObject, "metadata", "annotations"), Json.at(oldObject, "metadata", "annotations"));
        Generations.bumpGenerationIf(newObject, oldObject, changed);
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
        Templates.validateSelector(errors, object, "deployment");
        if (LabelSelectors.isConvertible(Json.at(spec, "selector"))) {
            Templates.validateForReplicaSet(errors, object, podTemplates, "ReplicaSet");
        } else {
            errors.add(FieldError.invalid("spec.selector", Validators.display(Json.at(spec, "selector")), "invalid label selector"));
        }
        validateStrategy(errors, Json.at(spec, "strategy"));
        Validators.nonNegative(errors, spec, "spec.minReadySeconds", "minReadySeconds");
        Validators.nonNegative(errors, spec, "spec.revisionHistoryLimit", "revisionHistoryLimit");
        Long progressDeadline = Json.integer(spec, "progressDeadlineSeconds");
        if (progressDeadline != null) {
            Validators.nonNegative(errors, spec, "spec.progressDeadlineSeconds", "progressDeadlineSeconds");
            if (progressDeadline <= Json.longValue(spec, "minReadySeconds")) {
                errors.add(FieldError.invalid("spec.progressDeadlineSeconds", progressDeadline, "must be greater than minReadySeconds"));
            }
        }
        return errors;
    }

    private static void validateStrategy(FieldErrors errors, JsonNode strategy) {
        String strategyType = Json.string(strategy, "type");
        switch (strategyType) {
            case "Recreate" -> {
                if (Json.present(strategy, "rollingUpdate")) {
                    errors.add(FieldError.forbidden("spec.strategy.rollingUpdate", "may not be specified when strategy `type` is 'Recreate'"));
                }
            }
            case "RollingUpdate" -> {
                JsonNode rollingUpdate = Json.at(strategy, "rollingUpdate");
                if (!rollingUpdate.isObject()) {
                    errors.add(FieldError.required("spec.strategy.rollingUpdate", "this should be defaulted and never be nil"));
                } else {
                    JsonNode maxUnavailable = Json.at(rollingUpdate, "maxUnavailable");
                    JsonNode maxSurge = Json.at(rollingUpdate, "maxSurge");
                    IntOrPercent.validatePositive(errors, maxUnavailable, "spec.strategy.rollingUpdate.maxUnavailable");
                    IntOrPercent.validatePositive(errors, maxSurge, "spec.strategy.rollingUpdate.maxSurge");
                    if (IntOrPercent.intValue(maxUnavailable) == 0 && IntOrPercent.intValue(maxSurge) == 0) {
                        errors.add(FieldError.invalid("spec.strategy.rollingUpdate.maxUnavailable", IntOrPercent.display(maxUnavailable), "may not be 0 when `maxSurge` is 0"));
                    }
                    IntOrPercent.validateAtMost100Percent(errors, maxUnavailable, "spec.strategy.rollingUpdate.maxUnavailable");
                }
            }
            default -> errors.add(FieldError.notSupported("spec.strategy", Validators.display(strategy), List.of("Recreate", "RollingUpdate")));
        }
    }

    /** Upstream's {@code ValidateDeploymentStatusUpdate}. */
    public static FieldErrors validateStatusUpdate(ObjectNode newObject, ObjectNode oldObject) {
        FieldErrors errors = new FieldErrors();
        JsonNode status = Json.at(newObject, "status");
        for (String field : List.of("observedGeneration", "replicas", "updatedReplicas", "readyReplicas", "availableReplicas", "unavailableReplicas", "collisionCount")) {
            Validators.nonNegative(errors, status, "status." + field, field);
        }
        long replicas = Json.longValue(status, "replicas");
        String greaterThanReplicas = "cannot be greater than status.replicas";
        for (String field : List.of("updatedReplicas", "readyReplicas", "availableReplicas")) {
            long value = Json.longValue(status, field);
            if (value > replicas) {
                errors.add(FieldError.invalid("status." + field, value, greaterThanReplicas));
            }
        }
        if (Json.longValue(status, "availableReplicas") > Json.longValue(status, "readyReplicas")) {
            errors.add(FieldError.invalid("status.availableReplicas", Json.longValue(status, "availableReplicas"), "cannot be greater than readyReplicas"));
        }
        Long newCollisions = Json.integer(status, "collisionCount");
        Long oldCollisions = Json.integer(oldObject, "status", "collisionCount");
        if (newCollisions != null && oldCollisions != null && newCollisions < oldCollisions) {
            errors.add(FieldError.invalid("status.collisionCount", newCollisions, "cannot be decremented"));
        }
        return errors;
    }

    @Override
    public List<TableColumn> tableColumns() {
        return COLUMNS;
    }

    @Override
    public List<Object> tableRow(ObjectNode object) {
        List<Object> cells = new ArrayList<>();
        cells.add(Json.string(object, "metadata", "name"));
        cells.add(Json.longValue(object, "status", "readyReplicas") + "/" + Json.longValue(object, "spec", "replicas"));
        cells.add(Json.longValue(object, "status", "updatedReplicas"));
        cells.add(Json.longValue(object, "status", "availableReplicas"));
        cells.add(ages.since(Json.text(object, "metadata", "creationTimestamp")));
        cells.addAll(Templates.containerCells(Json.at(object, "spec", "template", "spec")));
        cells.add(LabelSelectors.render(Json.at(object, "spec", "selector")).orElse("<invalid>"));
        return cells;
    }
}
