package io.k4j.apiserver.registry.groups;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.core.pod.PodSpecDefaults;
import io.k4j.apiserver.registry.core.pod.PodSpecValidation;

/**
 * The pod template rules of the core group's pod strategy: defaults of an embedded pod spec and upstream's
 * {@code ValidatePodTemplateSpec} (labels, annotations, spec). Stateless and thread-safe.
 */
public final class CorePodTemplateRules implements PodTemplateRules {
    @Override
    public void applyDefaults(ObjectNode podTemplate) {
        PodSpecDefaults.applyToTemplate(podTemplate);
    }

    @Override
    public FieldErrors validate(ObjectNode podTemplate, String path) {
        return PodSpecValidation.validateTemplate(podTemplate, path);
    }
}
