package io.k4j.apiserver.registry.apps.controllerrevision;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.GroupVersionKind;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import io.k4j.apiserver.registry.groups.Ages;
import io.k4j.apiserver.registry.groups.Json;
import io.k4j.apiserver.registry.groups.Validators;
import java.util.List;
import java.util.Locale;

/**
 * The rules of apps/v1 ControllerRevisions, as upstream's {@code pkg/registry/apps/controllerrevision/strategy.go}:
 * data is mandatory and immutable, revision non-negative. Stateless and thread-safe.
 */
public final class ControllerRevisionStrategy implements ResourceStrategy {
    private static final List<TableColumn> COLUMNS = List.of(
            TableColumn.nameColumn(),
            TableColumn.string("Controller", "Controller of the object"),
            TableColumn.string("Revision", "Revision indicates the revision of the state represented by Data."),
            TableColumn.ageColumn());

    private final ResourceType type;
    private final Ages ages;

    public ControllerRevisionStrategy(ResourceType type, Ages ages) {
        this.type = requireNonNull(type, "type is null");
        this.ages = requireNonNull(ages, "ages is null");
    }

    @Override
    public ResourceType type() {
        return type;
    }

    @Override
    public void prepareForCreate(ObjectNode object) {}

    @Override
    public void prepareForUpdate(ObjectNode newObject, ObjectNode oldObject) {}

    @Override
    public FieldErrors validate(ObjectNode object) {
        FieldErrors errors = new FieldErrors();
        if (!Json.present(object, "data")) {
            errors.add(FieldError.required("data", "data is mandatory"));
        }
        Validators.nonNegative(errors, object, "revision", "revision");
        return errors;
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newObject, ObjectNode oldObject) {
        FieldErrors errors = validate(newObject);
        Validators.immutable(errors, newObject.get("data"), oldObject.get("data"), "data");
        return errors;
    }

    @Override
    public List<TableColumn> tableColumns() {
        return COLUMNS;
    }

    @Override
    public List<Object> tableRow(ObjectNode object) {
        String controller = "<none>";
        for (JsonNode owner : Json.elements(object, "metadata", "ownerReferences")) {
            if (Json.bool(owner, "controller")) {
                GroupVersionKind kind = GroupVersionKind.of(Json.string(owner, "apiVersion"), Json.string(owner, "kind"));
                String groupKind = kind.group().isEmpty() ? kind.kind() : kind.kind() + "." + kind.group();
                controller = kind.kind().isEmpty() ? Json.string(owner, "name") : groupKind.toLowerCase(Locale.ROOT) + "/" + Json.string(owner, "name");
                break;
            }
        }
        return List.of(Json.string(object, "metadata", "name"), controller, Json.longValue(object, "revision"),
                ages.since(Json.text(object, "metadata", "creationTimestamp")));
    }
}
