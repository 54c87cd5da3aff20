package io.k4j.apiserver.registry.coordination.lease;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import io.k4j.apiserver.registry.groups.Ages;
import io.k4j.apiserver.registry.groups.Json;
import java.util.List;

/**
 * The rules of coordination.k8s.io/v1 Leases, as upstream's {@code pkg/registry/coordination/lease/strategy.go}
 * and {@code ValidateLease}: PUT may create a lease, but only with a resourceVersion-guarded update may it change
 * one (leader election relies on that). Stateless and thread-safe.
 */
public final class LeaseStrategy implements ResourceStrategy {
    private static final List<TableColumn> COLUMNS = List.of(
            TableColumn.nameColumn(),
            TableColumn.string("Holder", "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field."),
            TableColumn.ageColumn());

    private final ResourceType type;
    private final Ages ages;

    public LeaseStrategy(ResourceType type, Ages ages) {
        this.type = requireNonNull(type, "type is null");
        this.ages = requireNonNull(ages, "ages is null");
    }

    @Override
    public ResourceType type() {
        return type;
    }

    @Override
    public void prepareForCreate(ObjectNode object) {
        dropDisabledFields(object);
    }

    @Override
    public void prepareForUpdate(ObjectNode newObject, ObjectNode oldObject) {
        dropDisabledFields(newObject);
    }

    // strategy and preferredHolder belong to the alpha CoordinatedLeaderElection feature, off in 1.32.
    private static void dropDisabledFields(ObjectNode object) {
        if (object.get("spec") instanceof ObjectNode spec) {
            spec.remove("strategy");
            spec.remove("preferredHolder");
        }
    }

    @Override
    public FieldErrors validate(ObjectNode object) {
        FieldErrors errors = new FieldErrors();
        JsonNode spec = Json.at(object, "spec");
        Long duration = Json.integer(spec, "leaseDurationSeconds");
        if (duration != null && duration <= 0) {
            errors.add(FieldError.invalid("spec.leaseDurationSeconds", duration, "must be greater than 0"));
        }
        Long transitions = Json.integer(spec, "leaseTransitions");
        if (transitions != null && transitions < 0) {
            errors.add(FieldError.invalid("spec.leaseTransitions", transitions, "must be greater than or equal to 0"));
        }
        return errors;
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newObject, ObjectNode oldObject) {
        return validate(newObject);
    }

    @Override
    public boolean allowCreateOnUpdate() {
        return true;
    }

    @Override
    public boolean allowUnconditionalUpdate() {
        return false;
    }

    @Override
    public List<TableColumn> tableColumns() {
        return COLUMNS;
    }

    @Override
    public List<Object> tableRow(ObjectNode object) {
        return List.of(Json.string(object, "metadata", "name"), Json.string(object, "spec", "holderIdentity"),
                ages.since(Json.text(object, "metadata", "creationTimestamp")));
    }
}
