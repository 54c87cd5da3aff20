package io.k4j.apiserver.registry.apps.daemonset;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.core.Printing;
import io.k4j.apiserver.registry.generic.TableColumn;
import io.k4j.apiserver.registry.groups.Ages;
import io.k4j.apiserver.registry.groups.GoMaps;
import io.k4j.apiserver.registry.groups.IntOrPercent;
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
 * The rules of apps/v1 DaemonSets, as upstream's {@code pkg/registry/apps/daemonset/strategy.go}, the apps/v1
 * defaults and {@code ValidateDaemonSet}. Stateless and thread-safe.
 */
public final class DaemonSetStrategy extends SpecAndStatusStrategy {
    private static final List<TableColumn> COLUMNS = List.of(
            TableColumn.nameColumn(),
            TableColumn.integer("Desired", "The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod)."),
            TableColumn.integer("Current", "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod."),
            TableColumn.integer("Ready", "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready."),
            TableColumn.integer("Up-to-date", "The total number of nodes that are running updated daemon pod"),
            TableColumn.integer("Available", "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)"),
            TableColumn.string("Node Selector", "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node."),
            TableColumn.ageColumn(),
            TableColumn.wide("Containers", "Names of each container in the template."),
            TableColumn.wide("Images", "Images referenced by each container in the template."),
            TableColumn.wide("Selector", "A label query over pods that are managed by the daemon set."));

    private final PodTemplateRules podTemplates;

    public DaemonSetStrategy(ResourceType type, PodTemplateRules podTemplates, Ages ages) {
        super(type, ages);
        this.podTemplates = requireNonNull(podTemplates, "podTemplates is null");
    }

    @Override
    public void applyDefaults(ObjectNode object) {
        ObjectNode spec = Json.object(object, "spec");
        ObjectNode updateStrategy = Json.object(spec, "updateStrategy");
        Json.putIfAbsent(updateStrategy, "type", "RollingUpdate");
        if (Json.string(updateStrategy, "type").equals("RollingUpdate")) {
            ObjectNode rollingUpdate = Json.object(updateStrategy, "rollingUpdate");
            Json.putIfAbsent(rollingUpdate, "maxUnavailable", 1);
            Json.putIfAbsent(rollingUpdate, "maxSurge", 0);
        }
        Json.putIfAbsent(spec, "revisionHistoryLimit", 10);
        podTemplates.applyDefaults(Templates.template(object));
    }

    @Override
    public FieldErrors validate(ObjectNode object) {
        return validateSpec(object);
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newObject, ObjectNode oldObject) {
        FieldErrors errors = validateSpec(newObject);
        Validators.immutable(errors, Json.at(newObject, "spec", "selector"), Json.at(oldObject, "spec", "selector"), "spec.selector");
        return errors;
    }

    private FieldErrors validateSpec(ObjectNode object) {
        FieldErrors errors = new FieldErrors();
        JsonNode spec = Json.at(object, "spec");
        JsonNode selector = Json.at(spec, "selector");
        JsonNode template = Json.at(spec, "template");
        LabelSelectors.validate(errors, selector, "spec.selector");
        Map<String, String> labels = Json.stringMap(template, "metadata", "labels");
        if (LabelSelectors.matches(selector, labels).orElse(true) == Boolean.FALSE) {
            errors.add(FieldError.invalid("spec.template.metadata.labels", GoMaps.render(labels), Templates.SELECTOR_MISMATCH));
        }
        if (Json.present(spec, "selector") && LabelSelectors.isEmpty(selector)) {
            errors.add(FieldError.invalid("spec.selector", Validators.display(selector), "empty selector is invalid for daemonset"));
        }
        if (template.isObject()) {
            errors.addAll(podTemplates.validate((ObjectNode) template, "spec.template"));
        }
        String restartPolicy = Json.string(template, "spec", "restartPolicy");
        if (!restartPolicy.equals("Always")) {
            errors.add(FieldError.notSupported("spec.template.spec.restartPolicy", restartPolicy, List.of("Always")));
        }
        Long deadline = Json.integer(template, "spec", "activeDeadlineSeconds");
        if (deadline != null) {
            errors.add(FieldError.invalid("spec.template.spec.activeDeadlineSeconds", deadline, "activeDeadlineSeconds must be nil for daemons"));
        }
        Validators.nonNegative(errors, spec, "spec.minReadySeconds", "minReadySeconds");
        validateUpdateStrategy(errors, Json.at(spec, "updateStrategy"));
        Validators.nonNegative(errors, spec, "spec.revisionHistoryLimit", "revisionHistoryLimit");
        return errors;
    }

    private static void validateUpdateStrategy(FieldErrors errors, JsonNode strategy) {
        switch (Json.string(strategy, "type")) {
            case "OnDelete" -> {
            }
            case "RollingUpdate" -> {
                JsonNode rollingUpdate = Json.at(strategy, "rollingUpdate");
                if (!rollingUpdate.isObject()) {
                    errors.add(FieldError.required("spec.updateStrategy.rollingUpdate", ""));
                    return;
                }
                String path = "spec.updateStrategy.rollingUpdate";
                JsonNode maxUnavailable = Json.at(rollingUpdate, "maxUnavailable");
                JsonNode maxSurge = Json.at(rollingUpdate, "maxSurge");
                boolean hasUnavailable = Json.present(rollingUpdate, "maxUnavailable") && IntOrPercent.intValue(maxUnavailable) != 0;
                boolean hasSurge = Json.present(rollingUpdate, "maxSurge") && IntOrPercent.intValue(maxSurge) != 0;
                if (hasUnavailable) {
                    IntOrPercent.validatePositive(errors, maxUnavailable, path + ".maxUnavailable");
                    IntOrPercent.validateAtMost100Percent(errors, maxUnavailable, path + ".maxUnavailable");
                }
                if (hasSurge) {
                    IntOrPercent.validatePositive(errors, maxSurge, path + ".maxSurge");
                    IntOrPercent.validateAtMost100Percent(errors, maxSurge, path + ".maxSurge");
                }
                if (hasUnavailable && hasSurge) {
                    errors.add(FieldError.invalid(path + ".maxSurge", IntOrPercent.display(maxSurge), "may not be set when maxUnavailable is non-zero"));
                } else if (!hasUnavailable && !hasSurge) {
                    errors.add(FieldError.required(path + ".maxUnavailable", "cannot be 0 when maxSurge is 0"));
                }
            }
            default -> errors.add(FieldError.notSupported("spec.updateStrategy", Validators.display(strategy), List.of("RollingUpdate", "OnDelete")));
        }
    }

    /** Upstream's {@code ValidateDaemonSetStatusUpdate}. */
    public static FieldErrors validateStatusUpdate(ObjectNode newObject, ObjectNode oldObject) {
        FieldErrors errors = new FieldErrors();
        JsonNode status = Json.at(newObject, "status");
        for (String field : List.of("currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady", "observedGeneration",
                "updatedNumberScheduled", "numberAvailable", "numberUnavailable", "collisionCount")) {
            Validators.nonNegative(errors, status, "status." + field, field);
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
        for (String field : List.of("desiredNumberScheduled", "currentNumberScheduled", "numberReady", "updatedNumberScheduled", "numberAvailable")) {
            cells.add(Json.longValue(object, "status", field));
        }
        cells.add(Printing.formatLabels(object.path("spec").path("template").path("spec").path("nodeSelector")));
        cells.add(ages.since(Json.text(object, "metadata", "creationTimestamp")));
        cells.addAll(Templates.containerCells(Json.at(object, "spec", "template", "spec")));
        cells.add(LabelSelectors.format(Json.at(object, "spec", "selector")));
        return cells;
    }
}
