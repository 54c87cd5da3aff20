package io.k4j.apiserver.registry.rbac.clusterrolebinding;

import io.k4j.api.resource.ResourceType;
import io.k4j.apiserver.registry.groups.Ages;
import io.k4j.apiserver.registry.rbac.RbacBindingStrategy;
import java.util.List;

/**
 * The rules of rbac.authorization.k8s.io/v1 ClusterRoleBindings, as upstream's
 * {@code pkg/registry/rbac/clusterrolebinding/strategy.go}: the role reference may only name a ClusterRole.
 * The rest is {@link RbacBindingStrategy}'s. Stateless and thread-safe.
 */
public final class ClusterRoleBindingStrategy extends RbacBindingStrategy {
    public ClusterRoleBindingStrategy(ResourceType type, Ages ages) {
        super(type, ages, List.of("ClusterRole"), false, "clusterRoleBinding");
    }
}
