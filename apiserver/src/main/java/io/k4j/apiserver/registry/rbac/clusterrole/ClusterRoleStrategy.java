package io.k4j.apiserver.registry.rbac.clusterrole;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.NameValidator;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.NameValidator;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import io.k4j.apiserver.registry.groups.Json;
import io.k4j.apiserver.registry.groups.LabelSelectors;
import io.k4j.apiserver.registry.groups.Validators;
import io.k4j.apiserver.registry.rbac.RbacRules;
import java.util.List;

/**
 * The rules of rbac.authorization.k8s.io/v1 ClusterRoles, as upstream's {@code pkg/registry/rbac/clusterrole/strategy.go}
 * and {@code ValidateClusterRole}: rules may not
 * be namespaced-only, and an aggregation rule needs valid selectors. Stateless and thread-safe.
 */
public final class ClusterRoleStrategy implements ResourceStrategy {
    private final ResourceType type;

    public ClusterRoleStrategy(ResourceType type) {
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
        RbacRules.validateRules(errors, object, false);
        JsonNode aggregation = Json.at(object, "aggregationRule");
        if (Json.present(object, "aggregationRule")) {
            List<JsonNode> selectors = Json.elements(aggregation, "clusterRoleSelectors");
            if (selectors.isEmpty()) {
                errors.add(FieldError.required("aggregationRule.clusterRoleSelectors", "at least one clusterRoleSelector required if aggregationRule is non-nil"));
            }
            for (int i = 0; i < selectors.size(); i++) {
                String path = "aggregationRule.clusterRoleSelectors[" + i + "]";
                LabelSelectors.validate(errors, selectors.get(i), path);
                if (!LabelSelectors.isConvertible(selectors.get(i))) {
                    errors.add(FieldError.invalid(path, Validators.display(selectors.get(i)), "invalid label selector."));
                }
            }
        }
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
