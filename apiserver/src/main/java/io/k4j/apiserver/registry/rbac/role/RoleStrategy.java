package io.k4j.apiserver.registry.rbac.role;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.NameValidator;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.NameValidator;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import io.k4j.apiserver.registry.rbac.RbacRules;
import java.util.List;

/**
 * The rules of rbac.authorization.k8s.io/v1 Roles, as upstream's {@code pkg/registry/rbac/role/strategy.go}
 * and {@code ValidateRole}. Stateless and thread-safe.
 */
public final class RoleStrategy implements ResourceStrategy {
    private final ResourceType type;

    public RoleStrategy(ResourceType type) {
        this.type = requireNonNull(type, "type is null");
    }

    @Override
    public ResourceType type() {
        return type;
    }

    /** RBAC names only need to be path segments, so that roles like {@code system:node} are possible. */
    @Override
    public NameValidator nameValidator() {
        return NameValidator.PATH_SEGMENT;
    }

    @Override
    public void prepareForCreate(ObjectNode object) {}

    @Override
    public void prepareForUpdate(ObjectNode newObject, ObjectNode oldObject) {}

    @Override
    public FieldErrors validate(ObjectNode object) {
        FieldErrors errors = new FieldErrors();
        RbacRules.validateRules(errors, object, true);
        return errors;
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newObject, ObjectNode oldObject) {
        return validate(newObject);
    }

    @Override
    public List<TableColumn> tableColumns() {
        return RbacRules.roleColumns();
    }

    @Override
    public List<Object> tableRow(ObjectNode object) {
        return RbacRules.roleRow(object);
    }
}
