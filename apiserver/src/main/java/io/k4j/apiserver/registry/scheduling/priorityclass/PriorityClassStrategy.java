package io.k4j.apiserver.registry.scheduling.priorityclass;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import io.k4j.apiserver.registry.groups.Ages;
import io.k4j.apiserver.registry.groups.Json;
import io.k4j.apiserver.registry.groups.Validators;
import java.util.List;
import java.util.Map;

/**
 * The rules of scheduling.k8s.io/v1 PriorityClasses, as upstream's
 * {@code pkg/registry/scheduling/priorityclass/strategy.go} and {@code ValidatePriorityClass}: names starting with
 * {@code system-} are reserved for the two built-in classes, user classes stay at or below one billion, and value
 * and preemption policy never change. Stateless and thread-safe.
 */
public final class PriorityClassStrategy implements ResourceStrategy {
    public static final String SYSTEM_PREFIX = "system-";
    public static final long HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000L;
    public static final long SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY;
    /** The built-in classes and their values; neither is the global default. */
    public static final Map<String, Long> SYSTEM_CLASSES = Map.of(
            "system-node-critical", SYSTEM_CRITICAL_PRIORITY + 1000,
            "system-cluster-critical", SYSTEM_CRITICAL_PRIORITY);

    private static final List<TableColumn> COLUMNS = List.of(
            TableColumn.nameColumn(),
            TableColumn.integer("Value", "value represents the integer value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec."),
            new TableColumn("Global-Default", "boolean", "", "globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of such global default PriorityClasses will be used as the default priority.", 0),
            TableColumn.ageColumn(),
            TableColumn.string("PreemptionPolicy", "preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset."));

    private final ResourceType type;
    private final Ages ages;

    public PriorityClassStrategy(ResourceType type, Ages ages) {
        this.type = requireNonNull(type, "type is null");
        this.ages = requireNonNull(ages, "ages is null");
    }

    @Override
    public ResourceType type() {
        return type;
    }

    @Override
    public void applyDefaults(ObjectNode object) {
        Json.putIfAbsent(object, "preemptionPolicy", "PreemptLowerPriority");
    }

    @Override
    public void prepareForCreate(ObjectNode object) {}

    @Override
    public void prepareForUpdate(ObjectNode newObject, ObjectNode oldObject) {}

    @Override
    public FieldErrors validate(ObjectNode object) {
        FieldErrors errors = new FieldErrors();
        String name = Json.string(object, "metadata", "name");
        long value = Json.longValue(object, "value");
        boolean globalDefault = Json.bool(object, "globalDefault");
        if (name.startsWith(SYSTEM_PREFIX)) {
            String problem = systemClassProblem(name, value, globalDefault);
            if (problem != null) {
                errors.add(FieldError.forbidden("metadata.name", "priority class names with '" + SYSTEM_PREFIX + "' prefix are reserved for system use only. error: " + problem));
            }
        } else if (value > HIGHEST_USER_DEFINABLE_PRIORITY) {
            errors.add(FieldError.forbidden("value", "maximum allowed value of a user defined priority is " + HIGHEST_USER_DEFINABLE_PRIORITY));
        }
        String preemptionPolicy = Json.text(object, "preemptionPolicy");
        if (preemptionPolicy != null) {
            if (preemptionPolicy.isEmpty()) {
                errors.add(FieldError.required("preemptionPolicy", ""));
            } else if (!preemptionPolicy.equals("PreemptLowerPriority") && !preemptionPolicy.equals("Never")) {
                errors.add(FieldError.notSupported("preemptionPolicy", preemptionPolicy, List.of("PreemptLowerPriority", "Never")));
            }
        }
        return errors;
    }

    private static String systemClassProblem(String name, long value, boolean globalDefault) {
        Long expected = SYSTEM_CLASSES.get(name);
        if (expected == null) {
            return name + " is not a known system priority class";
        }
        if (expected != value) {
            return "value of " + name + " PriorityClass must be " + expected;
        }
        if (globalDefault) {
            return "globalDefault of " + name + " PriorityClass must be false";
        }
        return null;
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newObject, ObjectNode oldObject) {
        FieldErrors errors = new FieldErrors();
        if (Json.longValue(newObject, "value") != Json.longValue(oldObject, "value")) {
            errors.add(FieldError.forbidden("value", "may not be changed in an update."));
        }
        Validators.immutable(errors, newObject.get("preemptionPolicy"), oldObject.get("preemptionPolicy"), "preemptionPolicy");
        return errors;
    }

    @Override
    public List<TableColumn> tableColumns() {
        return COLUMNS;
    }

    @Override
    public List<Object> tableRow(ObjectNode object) {
        return List.of(Json.string(object, "metadata", "name"), Json.longValue(object, "value"), Json.bool(object, "globalDefault"),
                ages.since(Json.text(object, "metadata", "creationTimestamp")), Json.string(object, "preemptionPolicy"));
    }
}
