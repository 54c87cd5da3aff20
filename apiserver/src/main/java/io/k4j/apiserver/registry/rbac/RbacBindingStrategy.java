package io.k4j.apiserver.registry.rbac;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.NameValidator;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import io.k4j.apiserver.registry.groups.Ages;
import java.util.List;

/**
 * What RoleBindings and ClusterRoleBindings share, as upstream's two binding strategies: the rbac/v1 defaults,
 * path-segment names, {@code ValidateRoleBinding}'s checks with the kinds the role reference may name, an
 * immutable role reference and the same printed columns. Stateless and thread-safe.
 */
public abstract class RbacBindingStrategy implements ResourceStrategy {
    private final ResourceType type;
    private final Ages ages;
    private final List<String> roleRefKinds;
    private final boolean namespaced;
    private final List<TableColumn> columns;

    /**
     * @param roleRefKinds the kinds {@code roleRef} may name
     * @param namespaced whether the binding lives in a namespace (service account subjects then default their namespace)
     * @param columnKindName how the wide columns' descriptions name the binding ({@code roleBinding})
     */
    protected RbacBindingStrategy(ResourceType type, Ages ages, List<String> roleRefKinds, boolean namespaced, String columnKindName) {
        this.type = requireNonNull(type, "type is null");
        this.ages = requireNonNull(ages, "ages is null");
        this.roleRefKinds = List.copyOf(roleRefKinds);
        this.namespaced = namespaced;
        this.columns = RbacRules.bindingColumns(columnKindName);
    }

    @Override
    public final ResourceType type() {
        return type;
    }

    @Override
    public final void applyDefaults(ObjectNode object) {
        RbacRules.applyBindingDefaults(object);
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
    public final FieldErrors validate(ObjectNode object) {
        return RbacRules.validateBinding(object, roleRefKinds, namespaced);
    }

    @Override
    public final FieldErrors validateUpdate(ObjectNode newObject, ObjectNode oldObject) {
        FieldErrors errors = validate(newObject);
        RbacRules.validateRoleRefUnchanged(errors, newObject, oldObject);
        return errors;
    }

    @Override
    public final List<TableColumn> tableColumns() {
        return columns;
    }

    @Override
    public final List<Object> tableRow(ObjectNode object) {
        return RbacRules.bindingRow(object, ages);
    }
}
