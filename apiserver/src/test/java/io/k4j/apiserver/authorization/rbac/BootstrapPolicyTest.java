package io.k4j.apiserver.authorization.rbac;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authorization.AuthorizationAttributes;
import io.k4j.apiserver.authorization.Decision;
import io.k4j.apiserver.authorization.testing.InMemoryRegistry;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class BootstrapPolicyTest {
    private InMemoryRegistry registry;
    private RbacAuthorizer authorizer;

    @BeforeEach
    void setUp() {
        registry = new InMemoryRegistry();
        BootstrapPolicy.clusterRoles().forEach(role -> registry.store("rbac.authorization.k8s.io", "clusterroles").create(role));
        BootstrapPolicy.clusterRoleBindings().forEach(binding -> registry.store("rbac.authorization.k8s.io", "clusterrolebindings").create(binding));
        BootstrapPolicy.namespacedRoles().forEach(role -> registry.store("rbac.authorization.k8s.io", "roles").create(role));
        BootstrapPolicy.namespacedRoleBindings().forEach(binding -> registry.store("rbac.authorization.k8s.io", "rolebindings").create(binding));
        authorizer = new RbacAuthorizer(new RbacPolicySource(registry, Duration.ZERO, InstantSource.system()));
    }

    private boolean allowed(UserInfo user, String verb, String group, String resource, String subresource, String namespace, String name) {
        return authorizer.authorize(new AuthorizationAttributes(user, verb, true, group, "v1", resource, subresource, namespace, name, "")).decision() == Decision.ALLOW;
    }

    private boolean allowedPath(UserInfo user, String path) {
        return authorizer.authorize(new AuthorizationAttributes(user, "get", false, "", "", "", "", "", "", path)).decision() == Decision.ALLOW;
    }

    @Test
    void everyObjectIsLabelledAndAnnotatedAndNamesAreUnique() {
        Set<String> names = new HashSet<>();
        for (ObjectNode object : BootstrapPolicy.clusterRoles()) {
            assertThat(object.path("metadata").path("labels").path("kubernetes.io/bootstrapping").asText()).isEqualTo("rbac-defaults");
            assertThat(object.path("metadata").path("annotations").path("rbac.authorization.kubernetes.io/autoupdate").asText()).isEqualTo("true");
            assertThat(names.add(object.path("metadata").path("name").asText())).isTrue();
        }
        assertThat(names).contains("cluster-admin", "admin", "edit", "view", "system:basic-user", "system:discovery", "system:public-info-viewer",
                "system:node", "system:node-proxier", "system:kube-scheduler", "system:kube-controller-manager", "system:kube-dns",
                "system:auth-delegator", "system:volume-scheduler", "system:monitoring", "system:controller:replicaset-controller",
                "system:certificates.k8s.io:kube-apiserver-client-approver");
        for (ObjectNode binding : BootstrapPolicy.clusterRoleBindings()) {
            assertThat(names).contains(binding.path("roleRef").path("name").asText());
        }
    }

    @Test
    void authenticatedUsersMayDiscoverAndReviewThemselves() {
        UserInfo anyone = UserInfo.of("jane", List.of("system:authenticated"));

        assertThat(allowedPath(anyone, "/api")).isTrue();
        assertThat(allowedPath(anyone, "/apis/apps/v1")).isTrue();
        assertThat(allowedPath(anyone, "/version")).isTrue();
        assertThat(allowedPath(anyone, "/metrics")).isFalse();
        assertThat(allowed(anyone, "create", "authorization.k8s.io", "selfsubjectaccessreviews", "", "", "")).isTrue();
        assertThat(allowed(anyone, "create", "authentication.k8s.io", "selfsubjectreviews", "", "", "")).isTrue();
        assertThat(allowed(anyone, "list", "", "pods", "", "default", "")).isFalse();
        assertThat(allowedPath(UserInfo.of("system:anonymous", List.of("system:unauthenticated")), "/healthz")).isTrue();
        assertThat(allowedPath(UserInfo.of("system:anonymous", List.of("system:unauthenticated")), "/api")).isFalse();
    }

    @Test
    void nodeSimulatorMayRunNodesAndPodsButNothingElse() {
        UserInfo simulator = UserInfo.of(BootstrapPolicy.NODE_SIMULATOR_USER, List.of("system:authenticated"));

        assertThat(allowed(simulator, "create", "", "nodes", "", "", "k4j-sim-0")).isTrue();
        assertThat(allowed(simulator, "watch", "", "nodes", "", "", "")).isTrue();
        assertThat(allowed(simulator, "patch", "", "nodes", "status", "", "k4j-sim-0")).isTrue();
        assertThat(allowed(simulator, "watch", "", "pods", "", "", "")).isTrue();
        assertThat(allowed(simulator, "patch", "", "pods", "status", "default", "web")).isTrue();
        assertThat(allowed(simulator, "delete", "", "pods", "", "default", "web")).isTrue();
        assertThat(allowed(simulator, "update", "coordination.k8s.io", "leases", "", "kube-node-lease", "k4j-sim-0")).isTrue();
        assertThat(allowed(simulator, "list", "coordination.k8s.io", "leases", "", "kube-node-lease", "")).isTrue();
        assertThat(allowed(simulator, "update", "coordination.k8s.io", "leases", "", "kube-system", "kube-scheduler")).isFalse();
        assertThat(allowed(simulator, "delete", "", "nodes", "", "", "k4j-sim-0")).isFalse();
        assertThat(allowed(simulator, "create", "", "pods", "", "default", "")).isFalse();
        assertThat(allowed(simulator, "get", "", "secrets", "", "default", "token")).isFalse();
    }

    @Test
    void componentsHaveTheirPermissions() {
        UserInfo scheduler = UserInfo.of("system:kube-scheduler", List.of("system:authenticated"));
        UserInfo proxy = UserInfo.of("system:kube-proxy", List.of("system:authenticated"));
        UserInfo controllerManager = UserInfo.of("system:kube-controller-manager", List.of("system:authenticated"));

        assertThat(allowed(scheduler, "create", "", "pods", "binding", "default", "web")).isTrue();
        assertThat(allowed(scheduler, "update", "coordination.k8s.io", "leases", "", "kube-system", "kube-scheduler")).isTrue();
        assertThat(allowed(scheduler, "update", "coordination.k8s.io", "leases", "", "kube-system", "kube-controller-manager")).isFalse();
        assertThat(allowed(proxy, "watch", "discovery.k8s.io", "endpointslices", "", "", "")).isTrue();
        assertThat(allowed(proxy, "create", "", "pods", "", "default", "")).isFalse();
        assertThat(allowed(controllerManager, "list", "apps", "deployments", "", "", "")).isTrue();
        assertThat(allowed(controllerManager, "update", "", "configmaps", "", "kube-system", "kube-controller-manager")).isTrue();
        assertThat(allowed(scheduler, "get", "", "configmaps", "", "kube-system", "extension-apiserver-authentication")).isTrue();
        assertThat(allowed(scheduler, "get", "", "configmaps", "", "kube-system", "kube-controller-manager")).isFalse();
    }

    @Test
    void controllerServiceAccountsHaveTheirRoles() {
        UserInfo replicaSetController = UserInfo.of("system:serviceaccount:kube-system:replicaset-controller",
                List.of("system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"));

        assertThat(allowed(replicaSetController, "create", "", "pods", "", "default", "")).isTrue();
        assertThat(allowed(replicaSetController, "update", "apps", "replicasets", "status", "default", "rs")).isTrue();
        assertThat(allowed(replicaSetController, "delete", "apps", "deployments", "", "default", "d")).isFalse();
    }

    @Test
    void nodeControllerMayReadAndEvictPodsAsTaintEvictionDoes() {
        UserInfo nodeController = UserInfo.of("system:serviceaccount:kube-system:node-controller",
                List.of("system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"));

        assertThat(allowed(nodeController, "get", "", "pods", "", "default", "web-1")).isTrue();
        assertThat(allowed(nodeController, "update", "", "pods", "status", "default", "web-1")).isTrue();
        assertThat(allowed(nodeController, "delete", "", "pods", "", "default", "web-1")).isTrue();
        assertThat(allowed(nodeController, "watch", "", "nodes", "", "", "")).isTrue();
        assertThat(allowed(nodeController, "create", "", "pods", "", "default", "")).isFalse();
    }

    @Test
    void userFacingRolesAggregate() {
        registry.create("rolebindings", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'v','namespace':'team'},'roleRef':{'kind':'ClusterRole','name':'view'},'subjects':[{'kind':'User','name':'viewer'}]}");
        registry.create("rolebindings", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'e','namespace':'team'},'roleRef':{'kind':'ClusterRole','name':'edit'},'subjects':[{'kind':'User','name':'editor'}]}");
        registry.create("rolebindings", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'a','namespace':'team'},'roleRef':{'kind':'ClusterRole','name':'admin'},'subjects':[{'kind':'User','name':'owner'}]}");
        UserInfo viewer = UserInfo.of("viewer", List.of("system:authenticated"));
        UserInfo editor = UserInfo.of("editor", List.of("system:authenticated"));
        UserInfo owner = UserInfo.of("owner", List.of("system:authenticated"));

        assertThat(allowed(viewer, "list", "", "pods", "", "team", "")).isTrue();
        assertThat(allowed(viewer, "get", "", "pods", "log", "team", "p")).isTrue();
        assertThat(allowed(viewer, "get", "", "secrets", "", "team", "s")).isFalse();
        assertThat(allowed(viewer, "create", "apps", "deployments", "", "team", "")).isFalse();
        assertThat(allowed(editor, "create", "apps", "deployments", "", "team", "")).isTrue();
        assertThat(allowed(editor, "list", "", "pods", "", "team", "")).isTrue();
        assertThat(allowed(editor, "create", "rbac.authorization.k8s.io", "roles", "", "team", "")).isFalse();
        assertThat(allowed(owner, "create", "rbac.authorization.k8s.io", "roles", "", "team", "")).isTrue();
        assertThat(allowed(owner, "patch", "apps", "deployments", "scale", "team", "d")).isTrue();
        assertThat(allowed(owner, "list", "", "pods", "", "other", "")).isFalse();

        assertThat(new ClusterRoleAggregator(registry).reconcile()).containsExactlyInAnyOrder("admin", "edit", "view");
    }
}
