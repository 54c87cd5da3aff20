package io.k4j.apiserver.registry.batch.job;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.generic.HumanDuration;
import io.k4j.apiserver.registry.generic.TableColumn;
import io.k4j.apiserver.registry.groups.Ages;
import io.k4j.apiserver.registry.groups.GoMaps;
import io.k4j.apiserver.registry.groups.Json;
import io.k4j.apiserver.registry.groups.LabelSelectors;
import io.k4j.apiserver.registry.groups.PodTemplateRules;
import io.k4j.apiserver.registry.groups.SpecAndStatusStrategy;
import io.k4j.apiserver.registry.groups.Templates;
import io.k4j.apiserver.registry.groups.Validators;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The rules of batch/v1 Jobs, as upstream's {@code pkg/registry/batch/job/strategy.go}, the batch/v1 defaults and
 * {@code ValidateJob}: unless {@code manualSelector} is set, the selector and the pod labels are generated from the
 * job's uid and name; completions (except for elastic indexed jobs), selector, template and completion mode are
 * immutable. Stateless and thread-safe.
 */
public final class JobStrategy extends SpecAndStatusStrategy {
    public static final String CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid";
    public static final String LEGACY_CONTROLLER_UID_LABEL = "controller-uid";
    public static final String JOB_NAME_LABEL = "batch.kubernetes.io/job-name";
    public static final String LEGACY_JOB_NAME_LABEL = "job-name";

    private static final List<TableColumn> COLUMNS = List.of(
            TableColumn.nameColumn(),
            TableColumn.string("Status", "Status of the job."),
            TableColumn.string("Completions", "The number of pods which reached phase Succeeded."),
            TableColumn.string("Duration", "Time required to complete the job."),
            TableColumn.ageColumn(),
            TableColumn.wide("Containers", "Names of each container in the template."),
            TableColumn.wide("Images", "Images referenced by each container in the template."),
            TableColumn.wide("Selector", "A label query over pods that should match the pod count."));

    private final PodTemplateRules podTemplates;

    public JobStrategy(ResourceType type, PodTemplateRules podTemplates, Ages ages) {
        super(type, ages);
        this.podTemplates = requireNonNull(podTemplates, "podTemplates is null");
    }

    @Override
    public void applyDefaults(ObjectNode object) {
        ObjectNode spec = Json.object(object, "spec");
        if (!Json.present(spec, "completions") && !Json.present(spec, "parallelism")) {
            spec.put("completions", 1);
            spec.put("parallelism", 1);
        }
        Json.putIfAbsent(spec, "parallelism", 1);
        Json.putIfAbsent(spec, "backoffLimit", Json.present(spec, "backoffLimitPerIndex") ? Integer.MAX_VALUE : 6);
        JsonNode templateLabels = Json.at(spec, "template", "metadata", "labels");
        if (templateLabels.isObject() && Json.size(object, "metadata", "labels") == 0) {
            Json.object(object, "metadata").set("labels", templateLabels.deepCopy());
        }
        Json.putIfAbsent(spec, "completionMode", "NonIndexed");
        Json.putIfAbsent(spec, "suspend", false);
        for (JsonNode rule : Json.elements(spec, "podFailurePolicy", "rules")) {
            for (JsonNode pattern : Json.elements(rule, "onPodConditions")) {
                if (pattern instanceof ObjectNode patternObject) {
                    Json.putIfAbsent(patternObject, "status", "True");
                }
            }
        }
        Json.putIfAbsent(spec, "podReplacementPolicy", Json.present(spec, "podFailurePolicy") ? "Failed" : "TerminatingOrFailed");
        Json.putIfAbsent(spec, "manualSelector", false);
        podTemplates.applyDefaults(Templates.template(object));
    }

    @Override
    public void prepareForCreate(ObjectNode object) {
        super.prepareForCreate(object);
        if (!manualSelector(object)) {
            generateSelector(object);
        }
    }

    /**
     * Generates the selector and pod labels once the uid is assigned (upstream does this in Validate; here both
     * create hooks try, whichever runs after the store assigned the uid): the job-name and controller-uid labels
     * on the template, and a selector on the controller-uid label.
     */
    static void generateSelector(ObjectNode job) {
        String name = Json.string(job, "metadata", "name");
        String uid = Json.string(job, "metadata", "uid");
        if (uid.isEmpty()) {
            return;
        }
        ObjectNode labels = Json.object(job, "spec", "template", "metadata", "labels");
        for (String label : List.of(LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL)) {
            if (!labels.has(label)) {
                labels.put(label, name);
            }
        }
        for (String label : List.of(LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL)) {
            if (!labels.has(label)) {
                labels.put(label, uid);
            }
        }
        ObjectNode matchLabels = Json.object(job, "spec", "selector", "matchLabels");
        if (!matchLabels.has(CONTROLLER_UID_LABEL)) {
            matchLabels.put(CONTROLLER_UID_LABEL, uid);
        }
    }

    private static boolean manualSelector(JsonNode job) {
        return Json.bool(job, "spec", "manualSelector");
    }

    @Override
    public FieldErrors validate(ObjectNode object) {
        if (!manualSelector(object)) {
            generateSelector(object);
        }
        FieldErrors errors = new FieldErrors();
        validateGeneratedSelector(errors, object);
        validateSpec(errors, object);
        JsonNode spec = Json.at(object, "spec");
        Long completions = Json.integer(spec, "completions");
        if ("Indexed".equals(Json.text(spec, "completionMode")) && completions != null && completions > 0) {
            // Pods of indexed jobs are named <job>-<index>, which must stay a DNS label.
            String name = Json.string(object, "metadata", "name");
            String maximumHostname = name + "-" + (completions - 1);
            if (!Validators.dns1123Label(maximumHostname).isEmpty()) {
                errors.add(FieldError.invalid("metadata.name", name, "will not able to create pod with invalid DNS label: " + maximumHostname));
            }
        }
        return errors;
    }

    private static void validateGeneratedSelector(FieldErrors errors, ObjectNode job) {
        if (manualSelector(job) || !Json.present(job, "spec", "template", "metadata", "labels")) {
            return;
        }
        String uid = Json.string(job, "metadata", "uid");
        if (uid.isEmpty()) {
            errors.add(FieldError.required("metadata.uid", ""));
        }
        if (!Json.present(job, "spec", "selector")) {
            return;
        }
        Map<String, String> labels = Json.stringMap(job, "spec", "template", "metadata", "labels");
        String name = Json.string(job, "metadata", "name");
        hasLabel(errors, labels, LEGACY_CONTROLLER_UID_LABEL, uid);
        hasLabel(errors, labels, LEGACY_JOB_NAME_LABEL, name);
        hasLabel(errors, labels, CONTROLLER_UID_LABEL, uid);
        hasLabel(errors, labels, JOB_NAME_LABEL, name);
        Optional<Boolean> matches = LabelSelectors.matches(Json.at(job, "spec", "selector"), Map.of(CONTROLLER_UID_LABEL, uid));
        if (matches.isPresent() && !matches.get()) {
            errors.add(FieldError.invalid("spec.selector", Validators.display(Json.at(job, "spec", "selector")), "`selector` not auto-generated"));
        }
    }

    private static void hasLabel(FieldErrors errors, Map<String, String> labels, String key, String expected) {
        String field = "spec.template.metadata.labels[" + key + "]";
        String actual = labels.get(key);
        if (actual == null) {
            errors.add(FieldError.required(field, expected));
        } else if (!actual.equals(expected)) {
            errors.add(FieldError.invalid(field, GoMaps.render(labels), "must be '" + expected + "'"));
        }
    }

    private void validateSpec(FieldErrors errors, ObjectNode job) {
        JsonNode spec = Json.at(job, "spec");
        JobSpecRules.validate(errors, spec, "spec", podTemplates);
        JsonNode selector = Json.at(spec, "selector");
        if (!Json.present(spec, "selector")) {
            errors.add(FieldError.required("spec.selector", ""));
        } else {
            LabelSelectors.validate(errors, selector, "spec.selector");
        }
        Map<String, String> labels = Json.stringMap(spec, "template", "metadata", "labels");
        if (LabelSelectors.matches(selector, labels).orElse(true) == Boolean.FALSE) {
            errors.add(FieldError.invalid("spec.template.metadata.labels", GoMaps.render(labels), Templates.SELECTOR_MISMATCH));
        }
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newObject, ObjectNode oldObject) {
        FieldErrors errors = new FieldErrors();
        validateSpec(errors, newObject);
        JsonNode spec = Json.at(newObject, "spec");
        JsonNode oldSpec = Json.at(oldObject, "spec");
        boolean indexed = "Indexed".equals(Json.text(spec, "completionMode"));
        if (!indexed) {
            Validators.immutable(errors, spec.get("completions"), oldSpec.get("completions"), "spec.completions");
        } else if (!Json.semanticEquals(spec.get("completions"), oldSpec.get("completions")) && Json.present(spec, "completions")
                && Json.longValue(spec, "completions") != Json.longValue(spec, "parallelism")) {
            // Elastic indexed jobs scale by changing completions and parallelism together.
            errors.add(FieldError.invalid("spec.completions", Json.longValue(spec, "completions"), "can only be modified in tandem with spec.parallelism"));
        }
        Validators.immutable(errors, spec.get("selector"), oldSpec.get("selector"), "spec.selector");
        validateTemplateUpdate(errors, newObject, oldObject);
        for (String field : List.of("completionMode", "podFailurePolicy", "backoffLimitPerIndex", "managedBy", "successPolicy")) {
            Validators.immutable(errors, spec.get(field), oldSpec.get(field), "spec." + field);
        }
        return errors;
    }

    // A suspended job that never started may still change where its pods run (upstream's mutable scheduling directives).
    private static void validateTemplateUpdate(FieldErrors errors, ObjectNode newObject, ObjectNode oldObject) {
        JsonNode template = Json.at(newObject, "spec", "template");
        JsonNode oldTemplateNode = Json.at(oldObject, "spec", "template");
        boolean mutableScheduling = Json.bool(oldObject, "spec", "suspend") && !Json.present(oldObject, "status", "startTime");
        if (mutableScheduling && template.isObject() && oldTemplateNode.isObject()) {
            ObjectNode oldTemplate = ((ObjectNode) oldTemplateNode).deepCopy();
            ObjectNode oldPodSpec = Json.object(oldTemplate, "spec");
            JsonNode newAffinity = Json.at(template, "spec", "affinity");
            if (!newAffinity.isObject() && oldPodSpec.get("affinity") instanceof ObjectNode oldAffinity) {
                oldAffinity.remove("nodeAffinity");
                if (oldAffinity.isEmpty()) {
                    oldPodSpec.remove("affinity");
                }
            } else if (newAffinity.isObject()) {
                ObjectNode affinity = Json.object(oldPodSpec, "affinity");
                JsonNode nodeAffinity = newAffinity.get("nodeAffinity");
                if (nodeAffinity == null) {
                    affinity.remove("nodeAffinity");
                } else {
                    affinity.set("nodeAffinity", nodeAffinity.deepCopy());
                }
            }
            for (String field : List.of("nodeSelector", "tolerations", "schedulingGates")) {
                copy(oldPodSpec, Json.at(template, "spec"), field);
            }
            ObjectNode oldMetadata = Json.object(oldTemplate, "metadata");
            for (String field : List.of("annotations", "labels")) {
                copy(oldMetadata, Json.at(template, "metadata"), field);
            }
            Validators.immutable(errors, template, oldTemplate, "spec.template");
        } else {
            Validators.immutable(errors, template, oldTemplateNode, "spec.template");
        }
    }

    private static void copy(ObjectNode target, JsonNode source, String field) {
        JsonNode value = source.get(field);
        if (value == null) {
            target.remove(field);
        } else {
            target.set(field, value.deepCopy());
        }
    }

    /** Upstream's {@code ValidateJobStatus} counters. */
    public static FieldErrors validateStatusUpdate(ObjectNode newObject, ObjectNode oldObject) {
        FieldErrors errors = new FieldErrors();
        JsonNode status = Json.at(newObject, "status");
        for (String field : List.of("active", "succeeded", "failed", "ready", "terminating")) {
            Validators.nonNegative(errors, status, "status." + field, field);
        }
        // A pod uid may be counted once, as succeeded or as failed.
        Set<String> seen = new HashSet<>();
        for (String outcome : List.of("succeeded", "failed")) {
            List<JsonNode> uids = Json.elements(status, "uncountedTerminatedPods", outcome);
            for (int i = 0; i < uids.size(); i++) {
                String path = "status.uncountedTerminatedPods." + outcome + "[" + i + "]";
                String uid = uids.get(i).asText();
                if (uid.isEmpty()) {
                    errors.add(FieldError.invalid(path, uid, "must not be empty"));
                } else if (!seen.add(uid)) {
                    errors.add(FieldError.duplicate(path, uid));
                }
            }
        }
        return errors;
    }

    @Override
    public Map<String, String> selectableFields(ObjectNode object) {
        return Map.of("status.successful", String.valueOf(Json.longValue(object, "status", "succeeded")));
    }

    @Override
    public List<TableColumn> tableColumns() {
        return COLUMNS;
    }

    @Override
    public List<Object> tableRow(ObjectNode object) {
        JsonNode spec = Json.at(object, "spec");
        long succeeded = Json.longValue(object, "status", "succeeded");
        String completions;
        if (Json.present(spec, "completions")) {
            completions = succeeded + "/" + Json.longValue(spec, "completions");
        } else {
            long parallelism = Json.longValue(spec, "parallelism");
            completions = parallelism > 1 ? succeeded + "/1 of " + parallelism : succeeded + "/1";
        }
        Optional<Instant> start = HumanDuration.parse(Json.text(object, "status", "startTime"));
        Optional<Instant> completion = HumanDuration.parse(Json.text(object, "status", "completionTime"));
        String duration = "";
        if (start.isPresent()) {
            duration = HumanDuration.format(Duration.between(start.get(), completion.orElseGet(ages::now)));
        }
        List<Object> cells = new ArrayList<>();
        cells.add(Json.string(object, "metadata", "name"));
        cells.add(status(object));
        cells.add(completions);
        cells.add(duration);
        cells.add(ages.since(Json.text(object, "metadata", "creationTimestamp")));
        cells.addAll(Templates.containerCells(Json.at(spec, "template", "spec")));
        cells.add(LabelSelectors.format(Json.at(spec, "selector")));
        return cells;
    }

    private static String status(ObjectNode job) {
        if (hasCondition(job, "Complete")) {
            return "Complete";
        } else if (hasCondition(job, "Failed")) {
            return "Failed";
        } else if (Json.present(job, "metadata", "deletionTimestamp")) {
            return "Terminating";
        } else if (hasCondition(job, "Suspended")) {
            return "Suspended";
        } else if (hasCondition(job, "FailureTarget")) {
            return "FailureTarget";
        }
        return "Running";
    }

    // The first condition of the type decides, as upstream's hasJobCondition.
    private static boolean hasCondition(JsonNode job, String conditionType) {
        for (JsonNode condition : Json.elements(job, "status", "conditions")) {
            if (conditionType.equals(Json.string(condition, "type"))) {
                return "True".equals(Json.string(condition, "status"));
            }
        }
        return false;
    }
}
