package io.k4j.apiserver.registry.groups;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Rules and printing shared by resources that embed a pod template (deployments, replica sets, stateful sets,
 * daemon sets, jobs). Stateless and thread-safe.
 */
public final class Templates {
    public static final String SELECTOR_MISMATCH = "`selector` does not match template `labels`";

    private Templates() {}

    /** Container names and images, comma separated, as upstream's {@code layoutContainerCells}. */
    public static List<String> containerCells(JsonNode podSpec) {
        List<String> names = new ArrayList<>();
        List<String> images = new ArrayList<>();
        for (JsonNode container : Json.elements(podSpec, "containers")) {
            names.add(Json.string(container, "name"));
            images.add(Json.string(container, "image"));
        }
        return List.of(String.join(",", names), String.join(",", images));
    }

    /** The template object at {@code spec.template}, created when absent. */
    public static ObjectNode template(ObjectNode object) {
        return Json.object(object, "spec", "template");
    }

    /**
     * Upstream's {@code ValidatePodTemplateSpecForReplicaSet}: the selector must select the template's labels,
     * the template must be valid, restart only {@code Always}, no {@code activeDeadlineSeconds}.
     *
     * @param kindForDeadline the kind named in the activeDeadlineSeconds message, e.g. {@code ReplicaSet}
     */
    public static void validateForReplicaSet(FieldErrors errors, ObjectNode object, PodTemplateRules podTemplates, String kindForDeadline) {
        JsonNode template = Json.at(object, "spec", "template");
        if (!template.isObject()) {
            errors.add(FieldError.required("spec.template", ""));
            return;
        }
        JsonNode selector = Json.at(object, "spec", "selector");
        if (!LabelSelectors.isEmpty(selector)) {
            Map<String, String> labels = Json.stringMap(template, "metadata", "labels");
            if (LabelSelectors.matches(selector, labels).orElse(true) == Boolean.FALSE) {
                errors.add(FieldError.invalid("spec.template.metadata.labels", GoMaps.render(labels), SELECTOR_MISMATCH));
            }
        }
        errors.addAll(podTemplates.validate((ObjectNode) template, "spec.template"));
        String restartPolicy = Json.string(template, "spec", "restartPolicy");
        if (!restartPolicy.equals("Always")) {
            errors.add(FieldError.notSupported("spec.template.spec.restartPolicy", restartPolicy, List.of("Always")));
        }
        if (Json.present(template, "spec", "activeDeadlineSeconds")) {
            errors.add(FieldError.forbidden("spec.template.spec.activeDeadlineSeconds", "activeDeadlineSeconds in " + kindForDeadline + " is not Supported"));
        }
    }

    /**
     * The selector part of apps workload validation: required, valid, not empty.
     *
     * @param kindName the lower-case name in upstream's "empty selector is invalid for …" message
     */
    public static void validateSelector(FieldErrors errors, ObjectNode object, String kindName) {
        JsonNode selector = Json.at(object, "spec", "selector");
        if (!Json.present(object, "spec", "selector")) {
            errors.add(FieldError.required("spec.selector", ""));
            return;
        }
        LabelSelectors.validate(errors, selector, "spec.selector");
        if (LabelSelectors.isEmpty(selector)) {
            errors.add(FieldError.invalid("spec.selector", new Validators.Literal(LabelSelectors.goLiteral(selector)), "empty selector is invalid for " + kindName));
        }
    }
}
