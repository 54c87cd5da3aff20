package io.k4j.apiserver.registry.rbac.rolebinding;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.NameValidator;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.NameValidator;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import io.k4j.apiserver.registry.groups.Ages;
import io.k4j.apiserver.registry.rbac.RbacRules;
import java.util.List;

/**
 * The rules of rbac.authorization.k8s.io/v1 RoleBindings, as upstream's
 * {@code pkg/registry/rbac/rolebinding/strategy.go}, the rbac/v1 defaults and {@code ValidateRoleBinding}: the role
 * reference is immutable. Stateless and thread-safe.
 */
public final class RoleBindingStrategy implements ResourceStrategy {
    private final ResourceType type;
    private final Ages ages;

    public RoleBindingStrategy(ResourceType type, Ages ages) {
        this.type = requireNonNull(type, "type is null");
        this.ages = requireNonNull(ages, "ages is null");
    }

    @Override
    public ResourceType type() {
        return type;
    }

    @Override
    public void applyDefaults(ObjectNode object) {
        RbacRules.applyBindingDefaults(object);
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
        return RbacRules.validateBinding(object, List.of("Role", "ClusterRole"), true);
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newObject, ObjectNode oldObject) {
        FieldErrors errors = validate(newObject);
        RbacRules.validateRoleRefUnchanged(errors, newObject, oldObject);
        return errors;
    }

    @Override
    public List<TableColumn> tableColumns() {
        return RbacRules.bindingColumns("roleBinding");
    }

    @Override
    public List<Object> tableRow(ObjectNode object) {
        return RbacRules.bindingRow(object, ages);
    }
}
