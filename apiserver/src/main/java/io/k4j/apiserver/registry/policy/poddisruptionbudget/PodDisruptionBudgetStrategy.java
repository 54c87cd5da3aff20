package io.k4j.apiserver.registry.policy.poddisruptionbudget;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.generic.TableColumn;
import io.k4j.apiserver.registry.groups.Ages;
import io.k4j.apiserver.registry.groups.IntOrPercent;
import io.k4j.apiserver.registry.groups.Json;
import io.k4j.apiserver.registry.groups.LabelSelectors;
import io.k4j.apiserver.registry.groups.SpecAndStatusStrategy;
import io.k4j.apiserver.registry.groups.Validators;
import java.util.List;

/**
 * The rules of policy/v1 PodDisruptionBudgets, as upstream's
 * {@code pkg/registry/policy/poddisruptionbudget/strategy.go} and {@code ValidatePodDisruptionBudget}: at most one
 * of minAvailable and maxUnavailable, each a non-negative integer or a percentage up to 100%. Stateless and
 * thread-safe.
 */
public final class PodDisruptionBudgetStrategy extends SpecAndStatusStrategy {
    private static final List<TableColumn> COLUMNS = List.of(
            TableColumn.nameColumn(),
            TableColumn.string("Min Available", "The minimum number of pods that must be available."),
            TableColumn.string("Max Unavailable", "The maximum number of pods that may be unavailable."),
            TableColumn.integer("Allowed Disruptions", "Calculated number of pods that may be disrupted at this time."),
            TableColumn.ageColumn());

    public PodDisruptionBudgetStrategy(ResourceType type, Ages ages) {
        super(type, ages);
    }

    @Override
    public FieldErrors validate(ObjectNode object) {
        FieldErrors errors = new FieldErrors();
        JsonNode spec = Json.at(object, "spec");
        boolean hasMinAvailable = Json.present(spec, "minAvailable");
        boolean hasMaxUnavailable = Json.present(spec, "maxUnavailable");
        if (hasMinAvailable && hasMaxUnavailable) {
            errors.add(FieldError.invalid("spec", Validators.display(spec), "minAvailable and maxUnavailable cannot be both set"));
        }
        for (String field : List.of("minAvailable", "maxUnavailable")) {
            if (Json.present(spec, field)) {
                IntOrPercent.validatePositive(errors, spec.get(field), "spec." + field);
                IntOrPercent.validateAtMost100Percent(errors, spec.get(field), "spec." + field);
            }
        }
        LabelSelectors.validate(errors, Json.at(spec, "selector"), "spec.selector");
        String evictionPolicy = Json.text(spec, "unhealthyPodEvictionPolicy");
        if (evictionPolicy != null && !evictionPolicy.equals("AlwaysAllow") && !evictionPolicy.equals("IfHealthyBudget")) {
            errors.add(FieldError.notSupported("spec.unhealthyPodEvictionPolicy", evictionPolicy, List.of("AlwaysAllow", "IfHealthyBudget")));
        }
        return errors;
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newObject, ObjectNode oldObject) {
        return validate(newObject);
    }

    /** Upstream's {@code ValidatePodDisruptionBudgetStatusUpdate} counters. */
    public static FieldErrors validateStatusUpdate(ObjectNode newObject, ObjectNode oldObject) {
        FieldErrors errors = new FieldErrors();
        JsonNode status = Json.at(newObject, "status");
        for (String field : List.of("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods")) {
            Validators.nonNegative(errors, status, "status." + field, field);
        }
        return errors;
    }

    @Override
    public List<TableColumn> tableColumns() {
        return COLUMNS;
    }

    @Override
    public List<Object> tableRow(ObjectNode object) {
        JsonNode spec = Json.at(object, "spec");
        String minAvailable = Json.present(spec, "minAvailable") ? IntOrPercent.render(spec.get("minAvailable")) : "N/A";
        String maxUnavailable = Json.present(spec, "maxUnavailable") ? IntOrPercent.render(spec.get("maxUnavailable")) : "N/A";
        return List.of(Json.string(object, "metadata", "name"), minAvailable, maxUnavailable,
                Json.longValue(object, "status", "disruptionsAllowed"), ages.since(Json.text(object, "metadata", "creationTimestamp")));
    }
}
