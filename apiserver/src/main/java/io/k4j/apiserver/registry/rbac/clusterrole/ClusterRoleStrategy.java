package io.k4j.apiserver.registry.rbac.clusterrole;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.groups.Json;
import io.k4j.apiserver.registry.groups.LabelSelectors;
import io.k4j.apiserver.registry.groups.Validators;
import io.k4j.apiserver.registry.rbac.RbacRoleStrategy;
import java.util.List;

/**
 * The rules of rbac.authorization.k8s.io/v1 ClusterRoles, as upstream's
 * {@code pkg/registry/rbac/clusterrole/strategy.go} and {@code ValidateClusterRole}: {@link RbacRoleStrategy}'s
 * rules, and an aggregation rule needs valid selectors. Stateless and thread-safe.
 */
public final class ClusterRoleStrategy extends RbacRoleStrategy {
    public ClusterRoleStrategy(ResourceType type) {
        super(type, false);
    }

    @Override
    public FieldErrors validate(ObjectNode object) {
        FieldErrors errors = super.validate(object);
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
}
