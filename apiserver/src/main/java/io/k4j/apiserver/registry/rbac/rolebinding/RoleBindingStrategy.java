package io.k4j.apiserver.registry.rbac.rolebinding;

import io.k4j.api.resource.ResourceType;
import io.k4j.apiserver.registry.groups.Ages;
import io.k4j.apiserver.registry.rbac.RbacBindingStrategy;
import java.util.List;

/**
 * The rules of rbac.authorization.k8s.io/v1 RoleBindings, as upstream's
 * {@code pkg/registry/rbac/rolebinding/strategy.go}: the role reference may name a Role or a ClusterRole.
 * The rest is {@link RbacBindingStrategy}'s. Stateless and thread-safe.
 */
public final class RoleBindingStrategy extends RbacBindingStrategy {
    public RoleBindingStrategy(ResourceType type, Ages ages) {
        super(type, ages, List.of("Role", "ClusterRole"), true, "roleBinding");
    }
}
