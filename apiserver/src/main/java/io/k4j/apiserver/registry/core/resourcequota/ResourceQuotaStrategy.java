package io.k4j.apiserver.registry.core.resourcequota;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.quantity.Quantity;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.core.CoreResources;
import io.k4j.apiserver.registry.core.GoValues;
import io.k4j.apiserver.registry.core.Printing;
import io.k4j.apiserver.registry.core.ResourceNames;
import io.k4j.apiserver.registry.core.Trees;
import io.k4j.apiserver.registry.core.Updates;
import io.k4j.apiserver.registry.core.persistentvolume.PersistentVolumeStrategy;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.StatusStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The rules of resource quotas, as upstream's {@code resourcequotaStrategy}: status belongs to the quota controller
 * (cleared on create, kept on update), hard limits name quota resources with non-negative (for object counts whole)
 * quantities, and scopes are known, fit the limited resources and do not conflict. Thread-safe.
 */
public final class ResourceQuotaStrategy implements ResourceStrategy {
    private static final ResourceType TYPE = CoreResources.type("resourcequotas");
    /** VolumeAttributesClass is left out: its feature gate is off by default in 1.32. */
    private static final Set<String> SCOPES = Set.of("BestEffort", "CrossNamespacePodAffinity", "NotBestEffort", "NotTerminating", "PriorityClass", "Terminating");
    private static final Set<String> POD_COMPUTE_RESOURCES = Set.of("cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory");
    private static final List<List<String>> CONFLICTING_SCOPES = List.of(List.of("BestEffort", "NotBestEffort"), List.of("Terminating", "NotTerminating"));
    static final List<TableColumn> COLUMNS = List.of(
            TableColumn.nameColumn(),
            TableColumn.ageColumn(),
            TableColumn.string("Request", "Request represents a minimum amount of cpu/memory that a container may consume."),
            TableColumn.string("Limit", "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node."));

    private final InstantSource clock;

    public ResourceQuotaStrategy(InstantSource clock) {
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** The {@code resourcequotas/status} strategy: the spec is kept and the status quantities are checked. */
    public ResourceStrategy statusStrategy() {
        return new StatusStrategy(this, (newQuota, oldQuota) -> {
            FieldErrors errors = new FieldErrors();
            validateQuantities(Trees.at(newQuota, "status", "hard"), "status.hard", errors);
            validateQuantities(Trees.at(newQuota, "status", "used"), "status.used", errors);
            return errors;
        }, false);
    }

    @Override
    public ResourceType type() {
        return TYPE;
    }

    @Override
    public void prepareForCreate(ObjectNode quota) {
        quota.putObject("status");
    }

    @Override
    public void prepareForUpdate(ObjectNode newQuota, ObjectNode oldQuota) {
        Updates.copyField(oldQuota, newQuota, "status");
    }

    @Override
    public FieldErrors validate(ObjectNode quota) {
        FieldErrors errors = new FieldErrors();
        validateQuantities(Trees.at(quota, "spec", "hard"), "spec.hard", errors);
        validateScopes(quota, errors);
        return errors;
    }

    /** Upstream's {@code validateResourceQuotaScopes}; every problem shows the whole scope list, as upstream does. */
    private static void validateScopes(JsonNode quota, FieldErrors errors) {
        List<String> scopes = new ArrayList<>();
        Trees.elements(quota, "spec", "scopes").forEach(scope -> scopes.add(scope.asText()));
        if (scopes.isEmpty()) {
            return;
        }
        Set<String> hard = new TreeSet<>();
        Trees.at(quota, "spec", "hard").fieldNames().forEachRemaining(hard::add);
        Object shown = GoValues.stringSlice("core.ResourceQuotaScope", scopes);
        for (String scope : scopes) {
            if (!SCOPES.contains(scope)) {
                errors.add(FieldError.invalid("spec.scopes", shown, "unsupported scope"));
            }
            for (String resource : hard) {
                if (ResourceNames.isStandardQuotaResource(resource) && !scopeAppliesTo(scope, resource)) {
                    errors.add(FieldError.invalid("spec.scopes", shown, "unsupported scope applied to resource"));
                }
            }
        }
        for (List<String> pair : CONFLICTING_SCOPES) {
            if (scopes.containsAll(pair)) {
                errors.add(FieldError.invalid("spec.scopes", shown, "conflicting scopes"));
            }
        }
    }

    /** Upstream's {@code IsResourceQuotaScopeValidForResource}: pod scopes limit pod counts and (most) compute resources. */
    private static boolean scopeAppliesTo(String scope, String resource) {
        return switch (scope) {
            case "Terminating", "NotTerminating", "NotBestEffort", "PriorityClass" -> resource.equals("pods") || POD_COMPUTE_RESOURCES.contains(resource);
            case "BestEffort", "CrossNamespacePodAffinity" -> resource.equals("pods");
            default -> true;
        };
    }

    /** Upstream's {@code ValidateResourceQuotaResourceName} and {@code ValidateResourceQuantityValue} for each entry. */
    private static void validateQuantities(JsonNode quantities, String path, FieldErrors errors) {
        for (Map.Entry<String, JsonNode> entry : quantities.properties()) {
            String itemPath = path + "[" + entry.getKey() + "]";
            errors.addAll(ResourceNames.validateQuotaResourceName(entry.getKey(), itemPath));
            Optional<Quantity> quantity = Trees.quantity(entry.getValue());
            if (quantity.isEmpty()) {
                errors.add(FieldError.invalid(itemPath, entry.getValue().asText(), "must be a valid quantity"));
                continue;
            }
            if (quantity.get().signum() < 0) {
                errors.add(FieldError.invalid(itemPath, quantity.get().toString(), "must be greater than or equal to 0"));
            }
            if (ResourceNames.isInteger(entry.getKey()) && quantity.get().toBigDecimal().stripTrailingZeros().scale() > 0) {
                errors.add(FieldError.invalid(itemPath, quantity.get().toString(), "must be an integer"));
            }
        }
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newQuota, ObjectNode oldQuota) {
        FieldErrors errors = validate(newQuota);
        Set<String> newScopes = new TreeSet<>();
        Set<String> oldScopes = new TreeSet<>();
        Trees.elements(newQuota, "spec", "scopes").forEach(scope -> newScopes.add(scope.asText()));
        Trees.elements(oldQuota, "spec", "scopes").forEach(scope -> oldScopes.add(scope.asText()));
        if (!newScopes.equals(oldScopes)) {
            List<String> shown = new ArrayList<>();
            Trees.elements(newQuota, "spec", "scopes").forEach(scope -> shown.add(scope.asText()));
            errors.add(FieldError.invalid("spec.scopes", GoValues.stringSlice("core.ResourceQuotaScope", shown), "field is immutable"));
        }
        return errors;
    }

    @Override
    public List<TableColumn> tableColumns() {
        return COLUMNS;
    }

    @Override
    public List<Object> tableRow(ObjectNode quota) {
        Map<String, String> hard = new TreeMap<>();
        Trees.at(quota, "status", "hard").properties().forEach(entry -> hard.put(entry.getKey(), PersistentVolumeStrategy.quantity(entry.getValue())));
        List<String> requests = new ArrayList<>();
        List<String> limits = new ArrayList<>();
        for (Map.Entry<String, String> entry : hard.entrySet()) {
            String used = PersistentVolumeStrategy.quantity(Trees.at(quota, "status", "used", entry.getKey()));
            String cell = entry.getKey() + ": " + used + "/" + entry.getValue();
            if (entry.getKey().startsWith("limits.")) {
                limits.add(cell);
            } else {
                requests.add(cell);
            }
        }
        return List.of(
                Trees.text(quota, "metadata", "name"),
                Printing.since(Trees.at(quota, "metadata", "creationTimestamp"), clock.instant()),
                String.join(", ", requests),
                String.join(", ", limits));
    }
}
