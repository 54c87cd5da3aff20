package io.k4j.apiserver.registry.rbac.role;

import io.k4j.api.resource.ResourceType;
import io.k4j.apiserver.registry.rbac.RbacRoleStrategy;

/**
 * The rules of rbac.authorization.k8s.io/v1 Roles, as upstream's {@code pkg/registry/rbac/role/strategy.go}
 * and {@code ValidateRole}; all of it is {@link RbacRoleStrategy}'s. Stateless and thread-safe.
 */
public final class RoleStrategy extends RbacRoleStrategy {
    public RoleStrategy(ResourceType type) {
        super(type, true);
    }
}
