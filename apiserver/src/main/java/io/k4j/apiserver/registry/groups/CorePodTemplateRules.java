package io.k4j.apiserver.registry.groups;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.core.pod.PodSpecDefaults;
import io.k4j.apiserver.registry.core.pod.PodSpecValidation;

/**
 * The pod template rules of the core group's pod strategy (defaults and validation of an embedded pod spec),
 * plus the template's own labels, as upstream's {@code ValidatePodTemplateSpec}. Stateless and thread-safe.
 */
public final class CorePodTemplateRules implements PodTemplateRules {
    @Override
    public void applyDefaults(ObjectNode podTemplate) {
        PodSpecDefaults.applyToTemplate(podTemplate);
    }

    @Override
    public FieldErrors validate(ObjectNode podTemplate, String path) {
        FieldErrors errors = new FieldErrors();
        Validators.labels(errors, Json.stringMap(podTemplate, "metadata", "labels"), path + ".metadata.labels");
        return errors.addAll(PodSpecValidation.validateTemplate(podTemplate, path));
    }
}
