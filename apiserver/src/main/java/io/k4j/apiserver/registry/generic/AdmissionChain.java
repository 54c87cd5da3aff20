package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

import io.k4j.apiserver.admission.AdmissionAttributes;
import io.k4j.apiserver.admission.AdmissionPlugin;
import io.k4j.apiserver.admission.MutatingAdmissionPlugin;
import io.k4j.apiserver.admission.ValidatingAdmissionPlugin;
import java.util.List;

/**
 * The ordered admission plugins: every mutating plugin in order, then (after the resource's own validation)
 * every validating plugin in order. A plugin rejects by throwing, which stops the request. Thread-safe.
 */
public final class AdmissionChain {
    public static final AdmissionChain NONE = new AdmissionChain(List.of());

    private final List<MutatingAdmissionPlugin> mutating;
    private final List<ValidatingAdmissionPlugin> validating;

    public AdmissionChain(List<? extends AdmissionPlugin> plugins) {
        requireNonNull(plugins, "plugins is null");
        this.mutating = plugins.stream().filter(MutatingAdmissionPlugin.class::isInstance).map(MutatingAdmissionPlugin.class::cast).toList();
        this.validating = plugins.stream().filter(ValidatingAdmissionPlugin.class::isInstance).map(ValidatingAdmissionPlugin.class::cast).toList();
    }

    public void admit(AdmissionAttributes attributes) {
        for (MutatingAdmissionPlugin plugin : mutating) {
            if (plugin.handles(attributes.operation())) {
                plugin.admit(attributes);
            }
        }
    }

    public void validate(AdmissionAttributes attributes) {
        for (ValidatingAdmissionPlugin plugin : validating) {
            if (plugin.handles(attributes.operation())) {
                plugin.validate(attributes);
            }
        }
    }
}
