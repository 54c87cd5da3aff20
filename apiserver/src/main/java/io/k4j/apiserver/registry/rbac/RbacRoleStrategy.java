package io.k4j.apiserver.registry.rbac;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.NameValidator;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.util.List;

/**
 * What Roles and ClusterRoles share, as upstream's two role strategies: path-segment names, no preparation,
 * {@code ValidatePolicyRule} on every rule (the same on update) and the same printed columns. A subclass may
 * add checks by extending {@link #validate}. Stateless and thread-safe.
 */
public abstract class RbacRoleStrategy implements ResourceStrategy {
    private final ResourceType type;
    private final boolean namespaced;

    /** @param namespaced whether the role lives in a namespace (its rules may then not name non-resource URLs) */
    protected RbacRoleStrategy(ResourceType type, boolean namespaced) {
        this.type = requireNonNull(type, "type is null");
        this.namespaced = namespaced;
    }

    @Override
    public final ResourceType type() {
        return type;
    }

    /** RBAC names only need to be path segments, so that roles like {@code system:node} are possible. */
    @Override
    public final NameValidator nameValidator() {
        return NameValidator.PATH_SEGMENT;
    }

    @Override
    public final void prepareForCreate(ObjectNode object) {}

    @Override
    public final void prepareForUpdate(ObjectNode newObject, ObjectNode oldObject) {}

    @Override
    public FieldErrors validate(ObjectNode object) {
        FieldErrors errors = new FieldErrors();
        RbacRules.validateRules(errors, object, namespaced);
        return errors;
    }

    @Override
    public final FieldErrors validateUpdate(ObjectNode newObject, ObjectNode oldObject) {
        return validate(newObject);
    }

    @Override
    public final List<TableColumn> tableColumns() {
        return RbacRules.roleColumns();
    }

    @Override
    public final List<Object> tableRow(ObjectNode object) {
        return RbacRules.roleRow(object);
    }
}
