package io.k4j.apiserver.registry.apps.statefulset;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.generic.TableColumn;
import io.k4j.apiserver.registry.groups.Ages;
import io.k4j.apiserver.registry.groups.GoMaps;
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
 * The rules of apps/v1 StatefulSets, as upstream's {@code pkg/registry/apps/statefulset/strategy.go}, the
 * apps/v1 defaults and {@code ValidateStatefulSet}. Only replicas, ordinals, template, update strategy, revision
 * history limit, PVC retention policy and minReadySeconds may change. Stateless and thread-safe.
 */
public final class StatefulSetStrategy extends SpecAndStatusStrategy {
    private static final List<TableColumn> COLUMNS = List.of(
            TableColumn.nameColumn(),
            TableColumn.string("Ready", "Number of the pod with ready state"),
            TableColumn.ageColumn(),
            TableColumn.wide("Containers", "Names of each container in the template."),
            TableColumn.wide("Images", "Images referenced by each container in the template."));
    private static final List<String> MUTABLE_SPEC_FIELDS = List.of(
            "replicas", "ordinals", "template", "updateStrategy", "revisionHistoryLimit", "persistentVolumeClaimRetentionPolicy", "minReadySeconds");

    private final PodTemplateRules podTemplates;

    public StatefulSetStrategy(ResourceType type, PodTemplateRules podTemplates, Ages ages) {
        super(type, ages);
        this.podTemplates = requireNonNull(podTemplates, "podTemplates is null");
    }

    @Override
    public void applyDefaults(ObjectNode object) {
        ObjectNode spec = Json.object(object, "spec");
        Json.putIfAbsent(spec, "podManagementPolicy", "OrderedReady");
        ObjectNode updateStrategy = Json.object(spec, "updateStrategy");
        if (Json.string(updateStrategy, "type").isEmpty()) {
            updateStrategy.put("type", "RollingUpdate");
            Json.object(updateStrategy, "rollingUpdate");
        }
        if (Json.string(updateStrategy, "type").equals("RollingUpdate") && updateStrategy.get("rollingUpdate") instanceof ObjectNode rollingUpdate) {
            Json.putIfAbsent(rollingUpdate, "partition", 0);
        }
        ObjectNode retention = Json.object(spec, "persistentVolumeClaimRetentionPolicy");
        Json.putIfAbsent(retention, "whenDeleted", "Retain");
        Json.putIfAbsent(retention, "whenScaled", "Retain");
        Json.putIfAbsent(spec, "replicas", 1);
        Json.putIfAbsent(spec, "revisionHistoryLimit", 10);
        for (JsonNode claim : Json.elements(spec, "volumeClaimTemplates")) {
            if (claim instanceof ObjectNode claimObject) {
                // The persistent volume claim defaults apply to claim templates as to claims.
                Json.putIfAbsent(Json.object(claimObject, "spec"), "volumeMode", "Filesystem");
                Json.putIfAbsent(Json.object(claimObject, "status"), "phase", "Pending");
            }
        }
        podTemplates.applyDefaults(Templates.template(object));
    }

    @Override
    public void prepareForCreate(ObjectNode object) {
        super.prepareForCreate(object);
        dropDisabledFields(object);
    }

    @Override
    public void prepareForUpdate(ObjectNode newObject, ObjectNode oldObject) {
        super.prepareForUpdate(newObject, oldObject);
        dropDisabledFields(newObject);
    }

    // maxUnavailable belongs to the MaxUnavailableStatefulSet feature, off by default in 1.32.
    private static void dropDisabledFields(ObjectNode object) {
        if (Json.at(object, "spec", "updateStrategy", "rollingUpdate") instanceof ObjectNode rollingUpdate) {
            rollingUpdate.remove("maxUnavailable");
        }
    }

    @Override
    public FieldErrors validate(ObjectNode object) {
        return validateSpec(object);
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newObject, ObjectNode oldObject) {
        FieldErrors errors = validateSpec(newObject);
        ObjectNode newSpec = Json.at(newObject, "spec").isObject() ? ((ObjectNode) newObject.get("spec")).deepCopy() : Json.newObject();
        ObjectNode oldSpec = Json.at(oldObject, "spec").isObject() ? ((ObjectNode) oldObject.get("spec")).deepCopy() : Json.newObject();
        for (String field : MUTABLE_SPEC_FIELDS) {
            newSpec.remove(field);
            oldSpec.remove(field);
        }
        if (!Json.semanticEquals(newSpec, oldSpec)) {
            errors.add(FieldError.forbidden("spec", "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"));
        }
        return errors;
    }

    /**
     * The template as its pods will look: the controller adds a volume per volumeClaimTemplate, so mounts of a
     * claim's name are valid (upstream never rejects them).
     */
    private static ObjectNode withClaimVolumes(ObjectNode template, JsonNode spec) {
        if (Json.elements(spec, "volumeClaimTemplates").isEmpty()) {
            return template;
        }
        ObjectNode copy = template.deepCopy();
        ObjectNode podSpec = Json.object(copy, "spec");
        com.fasterxml.jackson.databind.node.ArrayNode volumes = podSpec.withArray("volumes");
        for (JsonNode claim : Json.elements(spec, "volumeClaimTemplates")) {
            String name = Json.string(claim, "metadata", "name");
            boolean declared = false;
            for (JsonNode volume : volumes) {
                declared |= name.equals(Json.string(volume, "name"));
            }
            if (!name.isEmpty() && !declared) {
                ObjectNode volume = volumes.addObject();
                volume.put("name", name);
                volume.putObject("persistentVolumeClaim").put("claimName", name);
            }
        }
        return copy;
    }

    private FieldErrors validateSpec(ObjectNode object) {
        FieldErrors errors = new FieldErrors();
        JsonNode spec = Json.at(object, "spec");
        String policy = Json.string(spec, "podManagementPolicy");
        if (policy.isEmpty()) {
            errors.add(FieldError.required("spec.podManagementPolicy", ""));
        } else if (!policy.equals("OrderedReady") && !policy.equals("Parallel")) {
            errors.add(FieldError.invalid("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'"));
        }
        JsonNode updateStrategy = Json.at(spec, "updateStrategy");
        switch (Json.string(updateStrategy, "type")) {
            case "" -> errors.add(FieldError.required("spec.updateStrategy", ""));
            case "OnDelete" -> {
                if (Json.present(updateStrategy, "rollingUpdate")) {
                    errors.add(FieldError.invalid("spec.updateStrategy.rollingUpdate", Validators.display(Json.at(updateStrategy, "rollingUpdate")), "only allowed for updateStrategy 'RollingUpdate'"));
                }
            }
            case "RollingUpdate" -> Validators.nonNegative(errors, updateStrategy, "spec.updateStrategy.rollingUpdate.partition", "rollingUpdate", "partition");
            default -> errors.add(FieldError.invalid("spec.updateStrategy", Validators.display(updateStrategy), "must be 'RollingUpdate' or 'OnDelete'"));
        }
        JsonNode retention = Json.at(spec, "persistentVolumeClaimRetentionPolicy");
        if (retention.isObject()) {
            for (String field : List.of("whenDeleted", "whenScaled")) {
                String value = Json.string(retention, field);
                if (!value.equals("Retain") && !value.equals("Delete")) {
                    errors.add(FieldError.notSupported("spec.persistentVolumeClaimRetentionPolicy." + field, value, List.of("Retain", "Delete")));
                }
            }
        }
        Validators.nonNegative(errors, spec, "spec.replicas", "replicas");
        Validators.nonNegative(errors, spec, "spec.ordinals.start", "ordinals", "start");
        Validators.nonNegative(errors, spec, "spec.minReadySeconds", "minReadySeconds");
        Templates.validateSelector(errors, object, "statefulset");
        JsonNode selector = Json.at(spec, "selector");
        JsonNode template = Json.at(spec, "template");
        if (!LabelSelectors.isConvertible(selector)) {
            errors.add(FieldError.invalid("spec.selector", Validators.display(selector), "invalid label selector"));
        } else if (!template.isObject()) {
            errors.add(FieldError.required("spec.template", ""));
        } else {
            Map<String, String> labels = Json.stringMap(template, "metadata", "labels");
            if (!LabelSelectors.isEmpty(selector) && LabelSelectors.matches(selector, labels).orElse(true) == Boolean.FALSE) {
                errors.add(FieldError.invalid("spec.template.metadata.labels", GoMaps.render(labels), Templates.SELECTOR_MISMATCH));
            }
            errors.addAll(podTemplates.validate(withClaimVolumes((ObjectNode) template, spec), "spec.template"));
        }
        String restartPolicy = Json.string(template, "spec", "restartPolicy");
        if (!restartPolicy.equals("Always")) {
            errors.add(FieldError.notSupported("spec.template.spec.restartPolicy", restartPolicy, List.of("Always")));
        }
        if (Json.present(template, "spec", "activeDeadlineSeconds")) {
            errors.add(FieldError.forbidden("spec.template.spec.activeDeadlineSeconds", "activeDeadlineSeconds in StatefulSet is not Supported"));
        }
        return errors;
    }

    /** Upstream's {@code ValidateStatefulSetStatusUpdate}. */
    public static FieldErrors validateStatusUpdate(ObjectNode newObject, ObjectNode oldObject) {
        FieldErrors errors = new FieldErrors();
        JsonNode status = Json.at(newObject, "status");
        for (String field : List.of("replicas", "readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas", "observedGeneration", "collisionCount")) {
            Validators.nonNegative(errors, status, "status." + field, field);
        }
        long replicas = Json.longValue(status, "replicas");
        for (String field : List.of("readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas")) {
            long value = Json.longValue(status, field);
            if (value > replicas) {
                errors.add(FieldError.invalid("status." + field, value, "cannot be greater than status.replicas"));
            }
        }
        if (Json.longValue(status, "availableReplicas") > Json.longValue(status, "readyReplicas")) {
            errors.add(FieldError.invalid("status.availableReplicas", Json.longValue(status, "availableReplicas"), "cannot be greater than status.readyReplicas"));
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
        cells.add(ages.since(Json.text(object, "metadata", "creationTimestamp")));
        cells.addAll(Templates.containerCells(Json.at(object, "spec", "template", "spec")));
        return cells;
    }
}
