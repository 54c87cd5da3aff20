package io.k4j.apiserver.admission.plugin.priority;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.api.errors.StatusReason;
import io.k4j.apiserver.admission.AdmissionAttributes;
import io.k4j.apiserver.admission.MutatingAdmissionPlugin;
import io.k4j.apiserver.admission.Operation;
import io.k4j.apiserver.admission.Resources;
import io.k4j.apiserver.admission.ValidatingAdmissionPlugin;
import io.k4j.apiserver.registry.generic.Registry;
import java.util.Optional;

/**
 * Resolves a pod's {@code priorityClassName} (or the global default class) into {@code spec.priority} and
 * {@code spec.preemptionPolicy}, so the scheduler never has to look classes up, and keeps at most one
 * PriorityClass marked as the global default. Thread-safe.
 */
public final class Priority implements MutatingAdmissionPlugin, ValidatingAdmissionPlugin {
    public static final String NAME = "Priority";
    static final String DEFAULT_PREEMPTION_POLICY = "PreemptLowerPriority";

    private final Registry registry;

    public Priority(Registry registry) {
        this.registry = requireNonNull(registry, "registry is null");
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean handles(Operation operation) {
        return operation == Operation.CREATE || operation == Operation.UPDATE;
    }

    @Override
    public void admit(AdmissionAttributes attributes) {
        if (attributes.operation() != Operation.CREATE || !Resources.isResource(attributes, Resources.PODS)
                || !attributes.subresource().isEmpty() || attributes.object() == null) {
            return;
        }
        ObjectNode spec = attributes.object().with("spec");
        String className = spec.path("priorityClassName").asText("");
        long priority;
        String preemptionPolicy;
        if (className.isEmpty()) {
            Optional<ObjectNode> defaultClass = globalDefault();
            if (defaultClass.isPresent()) {
                spec.put("priorityClassName", defaultClass.get().path("metadata").path("name").asText());
                priority = defaultClass.get().path("value").asLong();
                preemptionPolicy = defaultClass.get().path("preemptionPolicy").asText(DEFAULT_PREEMPTION_POLICY);
            } else {
                priority = 0;
                preemptionPolicy = DEFAULT_PREEMPTION_POLICY;
            }
        } else {
            ObjectNode priorityClass = lookUp(attributes, className);
            priority = priorityClass.path("value").asLong();
            preemptionPolicy = priorityClass.path("preemptionPolicy").asText(DEFAULT_PREEMPTION_POLICY);
        }
        JsonNode givenPriority = spec.path("priority");
        if (givenPriority.isNumber() && givenPriority.asLong() != priority) {
            throw Resources.forbidden(attributes, "the integer value of priority (" + givenPriority.asLong()
                    + ") must not be provided in pod spec; priority admission controller computed " + priority
                    + " from the given PriorityClass name");
        }
        spec.put("priority", priority);
        JsonNode givenPolicy = spec.path("preemptionPolicy");
        if (givenPolicy.isTextual() && !givenPolicy.asText().equals(preemptionPolicy)) {
            throw Resources.forbidden(attributes, "the string value of PreemptionPolicy (" + givenPolicy.asText()
                    + ") must not be provided in pod spec; priority admission controller computed " + preemptionPolicy
                    + " from the given PriorityClass name");
        }
        spec.put("preemptionPolicy", preemptionPolicy);
    }

    @Override
    public void validate(AdmissionAttributes attributes) {
        if (!Resources.isResource(attributes, Resources.PRIORITY_CLASSES) || attributes.object() == null
                || !attributes.object().path("globalDefault").asBoolean(false)) {
            return;
        }
        String name = attributes.object().path("metadata").path("name").asText();
        Optional<ObjectNode> existing = globalDefault();
        if (existing.isPresent() && !existing.get().path("metadata").path("name").asText().equals(name)) {
            throw Resources.forbidden(attributes, "PriorityClass " + existing.get().path("metadata").path("name").asText()
                    + " is already marked as default. Only one default can exist");
        }
    }

    private Optional<ObjectNode> globalDefault() {
        // With several defaults (only possible through races), upstream picks the lowest value.
        return registry.require(Resources.PRIORITY_CLASSES).listForReading("").stream()
                .filter(priorityClass -> priorityClass.path("globalDefault").asBoolean(false))
                .min((left, right) -> Long.compare(left.path("value").asLong(), right.path("value").asLong()));
    }

    private ObjectNode lookUp(AdmissionAttributes attributes, String className) {
        try {
            return registry.require(Resources.PRIORITY_CLASSES).getForReading("", className);
        } catch (StatusException e) {
            if (e.reason() == StatusReason.NOT_FOUND) {
                throw Resources.forbidden(attributes, "no PriorityClass with name " + className + " was found");
            }
            throw e;
        }
    }
}
