package io.k4j.apiserver.registry.core.resourcequota;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.quantity.Quantity;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.core.CoreResources;
import io.k4j.apiserver.registry.core.Printing;
import io.k4j.apiserver.registry.core.StatusSubresourceStrategy;
import io.k4j.apiserver.registry.core.Trees;
import io.k4j.apiserver.registry.core.Updates;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The rules of resource quotas, as upstream's {@code resourcequotaStrategy}: status belongs to the quota controller
 * (cleared on create, kept on update), hard limits are non-negative quantities and scopes are known ones. Thread-safe.
 */
public final class ResourceQuotaStrategy implements ResourceStrategy {
    private static final ResourceType TYPE = CoreResources.type("resourcequotas");
    private static final List<String> SCOPES = List.of("BestEffort", "CrossNamespacePodAffinity", "NotBestEffort", "NotTerminating", "PriorityClass", "Terminating",
            "VolumeAttributesClass");
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
        return new StatusSubresourceStrategy(this, (newQuota, oldQuota) -> {
            FieldErrors errors = new FieldErrors();
            validateQuantities(Trees.at(newQuota, "status", "hard"), "status.hard", errors);
            validateQuantities(Trees.at(newQuota, "status", "used"), "status.used", errors);
            return errors;
        });
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
        List<JsonNode> scopes = Trees.elements(quota, "spec", "scopes");
        for (int index = 0; index < scopes.size(); index++) {
            String scope = scopes.get(index).asText();
            if (!SCOPES.contains(scope)) {
                errors.add(FieldError.notSupported("spec.scopes", scope, SCOPES));
            }
        }
        return errors;
    }

    private static void validateQuantities(JsonNode quantities, String path, FieldErrors errors) {
        for (Map.Entry<String, JsonNode> entry : quantities.properties()) {
            String value = entry.getValue().asText();
            String itemPath = path + "[" + entry.getKey() + "]";
            Optional<Quantity> quantity = Trees.quantity(entry.getValue());
            if (quantity.isEmpty()) {
                errors.add(FieldError.invalid(itemPath, value, "must be a valid quantity"));
            } else if (quantity.get().signum() < 0) {
                errors.add(FieldError.invalid(itemPath, value, "must be greater than or equal to 0"));
            }
        }
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newQuota, ObjectNode oldQuota) {
        return validate(newQuota);
    }

    @Override
    public List<TableColumn> tableColumns() {
        return COLUMNS;
    }

    @Override
    public List<Object> tableRow(ObjectNode quota) {
        Map<String, String> hard = new TreeMap<>();
        Trees.at(quota, "status", "hard").properties().forEach(entry -> hard.put(entry.getKey(), entry.getValue().asText()));
        List<String> requests = new ArrayList<>();
        List<String> limits = new ArrayList<>();
        for (Map.Entry<String, String> entry : hard.entrySet()) {
            String used = Trees.text(quota, "status", "used", entry.getKey());
            String cell = entry.getKey() + ": " + (used.isEmpty() ? "0" : used) + "/" + entry.getValue();
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
