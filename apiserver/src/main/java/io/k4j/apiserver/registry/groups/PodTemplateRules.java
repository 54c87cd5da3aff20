package io.k4j.apiserver.registry.groups;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.validation.FieldErrors;

/**
 * The core group's rules for an embedded pod template ({@code spec.template} of workloads): upstream's pod
 * defaulting ({@code SetDefaults_PodSpec} and friends) and {@code ValidatePodTemplateSpec}. The core strategies
 * own these rules; workload strategies call them through this interface. Implementations are thread-safe.
 */
public interface PodTemplateRules {
    /** Fills the pod defaults into a {@code PodTemplateSpec} object (metadata + spec). */
    void applyDefaults(ObjectNode podTemplate);

    /**
     * Validates a {@code PodTemplateSpec}: labels, annotations and the pod spec.
     *
     * @param path the template's field path, e.g. {@code spec.template}
     */
    FieldErrors validate(ObjectNode podTemplate, String path);
}
