package io.k4j.apiserver.authorization.rbac;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authorization.AuthorizationAttributes;
import io.k4j.apiserver.authorization.AuthorizationResult;
import io.k4j.apiserver.authorization.Decision;
import io.k4j.apiserver.authorization.testing.InMemoryRegistry;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RbacAuthorizerTest {
    private static final UserInfo BOB = UserInfo.of("bob", List.of("dev", "system:authenticated"));
    private static final UserInfo BUILDER = UserInfo.of("system:serviceaccount:ci:builder", List.of("system:serviceaccounts", "system:serviceaccounts:ci", "system:authenticated"));

    private InMemoryRegistry registry;
    private RbacPolicySource policy;
    private RbacAuthorizer authorizer;

    @BeforeEach
    void setUp() {
        registry = new InMemoryRegistry();
        // no caching between reads, so every test sees its writes
        policy = new RbacPolicySource(registry, Duration.ZERO, InstantSource.system());
        authorizer = new RbacAuthorizer(policy);
    }

    private static AuthorizationAttributes request(UserInfo user, String verb, String group, String resource, String namespace, String name) {
        return new AuthorizationAttributes(user, verb, true, group, "v1", resource, "", namespace, name, "");
    }

    private void create(String resource, String json) {
        registry.create(resource, json);
    }

    @Test
    void clusterRoleBindingAllowsWithUpstreamsReason() {
        create("clusterroles", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'pod-reader'},'rules':[{'verbs':['get','list'],'apiGroups':[''],'resources':['pods']}]}");
        create("clusterrolebindings", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'read-pods'},'roleRef':{'apiGroup':'rbac.authorization.k8s.io','kind':'ClusterRole','name':'pod-reader'},"
                + "'subjects':[{'kind':'User','apiGroup':'rbac.authorization.k8s.io','name':'bob'}]}");

        AuthorizationResult result = authorizer.authorize(request(BOB, "list", "", "pods", "", ""));

        assertThat(result).isEqualTo(AuthorizationResult.allow("RBAC: allowed by ClusterRoleBinding \"read-pods\" of ClusterRole \"pod-reader\" to User \"bob\""));
        assertThat(authorizer.authorize(request(BOB, "delete", "", "pods", "default", "x")).decision()).isEqualTo(Decision.NO_OPINION);
        assertThat(authorizer.authorize(request(UserInfo.of("alice", List.of()), "list", "", "pods", "", "")).decision()).isEqualTo(Decision.NO_OPINION);
    }

    @Test
    void oneSnapshotMatchesEachIdentitysGroupsOnItsOwn() {
        create("clusterroles", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'pod-reader'},'rules':[{'verbs':['get','list'],'apiGroups':[''],'resources':['pods']}]}");
        create("clusterrolebindings", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'read-pods'},'roleRef':{'apiGroup':'rbac.authorization.k8s.io','kind':'ClusterRole','name':'pod-reader'},"
                + "'subjects':[{'kind':'Group','apiGroup':'rbac.authorization.k8s.io','name':'dev'}]}");
        // One snapshot for every request below, so that what it keeps per identity is what decides.
        RbacAuthorizer cached = new RbacAuthorizer(new RbacPolicySource(registry, Duration.ofHours(1), InstantSource.system()));
        UserInfo bobOutsideDev = UserInfo.of("bob", List.of("system:authenticated"));

        assertThat(cached.authorize(request(BOB, "list", "", "pods", "", "")).decision()).isEqualTo(Decision.ALLOW);
        assertThat(cached.authorize(request(bobOutsideDev, "list", "", "pods", "", "")).decision()).isEqualTo(Decision.NO_OPINION);
        assertThat(cached.authorize(request(BOB, "get", "", "pods", "default", "x")).decision()).isEqualTo(Decision.ALLOW);
        assertThat(cached.authorize(request(bobOutsideDev, "get", "", "pods", "default", "x")).decision()).isEqualTo(Decision.NO_OPINION);
    }

    @Test
    void roleBindingAppliesOnlyInItsNamespace() {
        create("roles", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'deployer','namespace':'ci'},'rules':[{'verbs':['create'],'apiGroups':['apps'],'resources':['deployments']}]}");
        create("rolebindings", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'deployers','namespace':'ci'},'roleRef':{'kind':'Role','name':'deployer'},"
                + "'subjects':[{'kind':'ServiceAccount','name':'builder'}]}");

        assertThat(authorizer.authorize(request(BUILDER, "create", "apps", "deployments", "ci", "")))
                .isEqualTo(AuthorizationResult.allow("RBAC: allowed by RoleBinding \"deployers/ci\" of Role \"deployer\" to ServiceAccount \"builder/ci\""));
        assertThat(authorizer.authorize(request(BUILDER, "create", "apps", "deployments", "prod", "")).decision()).isEqualTo(Decision.NO_OPINION);
        assertThat(authorizer.authorize(request(BUILDER, "create", "apps", "deployments", "", "")).decision()).isEqualTo(Decision.NO_OPINION);
    }

    @Test
    void roleBindingToAClusterRoleGrantsItInTheNamespace() {
        create("clusterroles", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'secret-reader'},'rules':[{'verbs':['get'],'apiGroups':[''],'resources':['secrets']}]}");
        create("rolebindings", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'devs','namespace':'team'},'roleRef':{'kind':'ClusterRole','name':'secret-reader'},"
                + "'subjects':[{'kind':'Group','name':'dev'}]}");

        assertThat(authorizer.authorize(request(BOB, "get", "", "secrets", "team", "s")).reason())
                .isEqualTo("RBAC: allowed by RoleBinding \"devs/team\" of ClusterRole \"secret-reader\" to Group \"dev\"");
        assertThat(authorizer.authorize(request(BOB, "get", "", "secrets", "other", "s")).decision()).isEqualTo(Decision.NO_OPINION);
    }

    @Test
    void serviceAccountSubjectOfAnotherNamespace() {
        create("clusterroles", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'node-reader'},'rules':[{'verbs':['list'],'apiGroups':[''],'resources':['nodes']}]}");
        create("clusterrolebindings", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'b'},'roleRef':{'kind':'ClusterRole','name':'node-reader'},"
                + "'subjects':[{'kind':'ServiceAccount','name':'builder','namespace':'ci'}]}");

        assertThat(authorizer.authorize(request(BUILDER, "list", "", "nodes", "", "")).reason())
                .isEqualTo("RBAC: allowed by ClusterRoleBinding \"b\" of ClusterRole \"node-reader\" to ServiceAccount \"builder/ci\"");
    }

    @Test
    void mastersAreAlwaysAllowed() {
        UserInfo admin = UserInfo.of("kubernetes-admin", List.of("system:masters", "system:authenticated"));

        assertThat(authorizer.authorize(request(admin, "deletecollection", "anything.example.com", "widgets", "x", "")).decision()).isEqualTo(Decision.ALLOW);
        assertThat(authorizer.rulesFor(admin, "default").rules()).hasSize(2);
    }

    @Test
    void missingRoleIsReportedInTheReason() {
        create("clusterrolebindings", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'dangling'},'roleRef':{'kind':'ClusterRole','name':'gone'},"
                + "'subjects':[{'kind':'User','name':'bob'}]}");

        assertThat(authorizer.authorize(request(BOB, "get", "", "pods", "", "")))
                .isEqualTo(new AuthorizationResult(Decision.NO_OPINION, "RBAC: clusterrole.rbac.authorization.k8s.io \"gone\" not found"));
    }

    @Test
    void aggregatedClusterRolesSeeTheRulesOfTheirSources() {
        create("clusterroles", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'monitoring'},'aggregationRule':{'clusterRoleSelectors':[{'matchLabels':{'example.com/aggregate-to-monitoring':'true'}}]},'rules':[]}");
        create("clusterroles", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'monitoring-endpoints','labels':{'example.com/aggregate-to-monitoring':'true'}},'rules':[{'verbs':['get'],'apiGroups':[''],'resources':['endpoints']}]}");
        create("clusterrolebindings", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'m'},'roleRef':{'kind':'ClusterRole','name':'monitoring'},'subjects':[{'kind':'User','name':'bob'}]}");

        assertThat(authorizer.authorize(request(BOB, "get", "", "endpoints", "x", "e")).decision()).isEqualTo(Decision.ALLOW);

        List<String> updated = new ClusterRoleAggregator(registry).reconcile();
        assertThat(updated).containsExactly("monitoring");
        ObjectNode stored = registry.store("rbac.authorization.k8s.io", "clusterroles").get("", "monitoring");
        assertThat(stored.path("rules")).hasSize(1);
        assertThat(new ClusterRoleAggregator(registry).reconcile()).isEmpty();

        registry.store("rbac.authorization.k8s.io", "clusterroles").delete("", "monitoring-endpoints");
        assertThat(authorizer.authorize(request(BOB, "get", "", "endpoints", "x", "e")).decision()).isEqualTo(Decision.NO_OPINION);
        assertThat(new ClusterRoleAggregator(registry).reconcile()).containsExactly("monitoring");
    }

    @Test
    void aggregationSelectorThatCannotBeParsedSelectsNothingWhileTheOthersStillSelect() {
        create("clusterroles", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'monitoring'},'aggregationRule':{'clusterRoleSelectors':["
                + "{'matchExpressions':[{'key':'tier','operator':'Bogus','values':['x']}]},{'matchLabels':{'example.com/aggregate-to-monitoring':'true'}}]},'rules':[]}");
        create("clusterroles", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'tiered','labels':{'tier':'x'}},'rules':[{'verbs':['get'],'apiGroups':[''],'resources':['secrets']}]}");
        create("clusterroles", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'monitoring-endpoints','labels':{'example.com/aggregate-to-monitoring':'true'}},'rules':[{'verbs':['get'],'apiGroups':[''],'resources':['endpoints']}]}");
        create("clusterrolebindings", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'m'},'roleRef':{'kind':'ClusterRole','name':'monitoring'},'subjects':[{'kind':'User','name':'bob'}]}");

        assertThat(authorizer.authorize(request(BOB, "get", "", "endpoints", "x", "e")).decision()).isEqualTo(Decision.ALLOW);
        assertThat(authorizer.authorize(request(BOB, "get", "", "secrets", "x", "s")).decision()).isEqualTo(Decision.NO_OPINION);
    }

    @Test
    void cachedSnapshotIsRebuiltWhenInvalidated() {
        RbacPolicySource cached = new RbacPolicySource(registry, Duration.ofHours(1), InstantSource.system());
        RbacAuthorizer cachedAuthorizer = new RbacAuthorizer(cached);
        assertThat(cachedAuthorizer.authorize(request(BOB, "get", "", "pods", "", "")).decision()).isEqualTo(Decision.NO_OPINION);

        create("clusterroles", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'r'},'rules':[{'verbs':['get'],'apiGroups':[''],'resources':['pods']}]}");
        create("clusterrolebindings", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'b'},'roleRef':{'kind':'ClusterRole','name':'r'},'subjects':[{'kind':'User','name':'bob'}]}");
        assertThat(cachedAuthorizer.authorize(request(BOB, "get", "", "pods", "", "")).decision()).isEqualTo(Decision.NO_OPINION);

        cached.invalidate();
        assertThat(cachedAuthorizer.authorize(request(BOB, "get", "", "pods", "", "")).decision()).isEqualTo(Decision.ALLOW);
    }
}
