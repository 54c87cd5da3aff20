package io.k4j.apiserver.authorization.rbac;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.api.resource.GroupVersionResource;
import io.k4j.apiserver.admission.AdmissionAttributes;
import io.k4j.apiserver.admission.AdmissionPlugins;
import io.k4j.apiserver.admission.AdmissionTesting;
import io.k4j.apiserver.admission.Operation;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authorization.testing.InMemoryRegistry;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RbacEscalationAdmissionTest {
    private static final UserInfo BOB = UserInfo.of("bob", List.of("system:authenticated"));
    private static final String ROLE_OVER_SECRETS = "{'apiVersion':'rbac.authorization.k8s.io/v1','kind':'Role','metadata':{'name':'r','namespace':'team'},"
            + "'rules':[{'verbs':['get'],'apiGroups':[''],'resources':['secrets']}]}";

    private InMemoryRegistry registry;
    private RbacEscalationAdmission admission;

    @BeforeEach
    void setUp() {
        registry = new InMemoryRegistry();
        registry.create("clusterroles", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'team-admin'},'rules':["
                + "{'verbs':['*'],'apiGroups':[''],'resources':['pods']},"
                + "{'verbs':['create','update','get'],'apiGroups':['rbac.authorization.k8s.io'],'resources':['roles','rolebindings']}]}");
        registry.create("clusterroles", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'cluster-admin'},'rules':["
                + "{'verbs':['*'],'apiGroups':['*'],'resources':['*']},{'verbs':['*'],'nonResourceURLs':['*']}]}");
        registry.create("rolebindings", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'bob','namespace':'team'},'roleRef':{'kind':'ClusterRole','name':'team-admin'},'subjects':[{'kind':'User','name':'bob'}]}");
        RbacPolicySource policy = new RbacPolicySource(registry, Duration.ZERO, InstantSource.system());
        RbacAuthorizer rbac = new RbacAuthorizer(policy);
        admission = new RbacEscalationAdmission(new EscalationCheck(policy, rbac, rbac));
    }

    private static AdmissionAttributes write(Operation operation, String resource, String kind, String namespace, String json, String oldJson, UserInfo user) {
        ObjectNode object = InMemoryRegistry.parse(json);
        ObjectNode oldObject = oldJson == null ? null : InMemoryRegistry.parse(oldJson);
        return new AdmissionAttributes(operation, AdmissionTesting.type(new GroupVersionResource(RbacPolicySource.GROUP, "v1", resource), kind, !namespace.isEmpty()),
                "", namespace, object.path("metadata").path("name").asText(), object, oldObject, user, false);
    }

    @Test
    void createOfARoleBeyondTheUsersRightsIsForbidden() {
        assertThatThrownBy(() -> admission.validate(write(Operation.CREATE, "roles", "Role", "team", ROLE_OVER_SECRETS, null, BOB)))
                .isInstanceOfSatisfying(StatusException.class, e -> {
                    assertThat(e.code()).isEqualTo(403);
                    assertThat(e.getMessage()).startsWith("roles.rbac.authorization.k8s.io \"r\" is forbidden: user \"bob\" (groups=[\"system:authenticated\"]) "
                            + "is attempting to grant RBAC permissions not currently held:\n{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"get\"]}");
                });
    }

    @Test
    void rolesWithinTheUsersRightsAndMastersPass() {
        String podReader = "{'apiVersion':'rbac.authorization.k8s.io/v1','kind':'Role','metadata':{'name':'r','namespace':'team'},"
                + "'rules':[{'verbs':['get','list'],'apiGroups':[''],'resources':['pods']}]}";
        assertThatCode(() -> admission.validate(write(Operation.CREATE, "roles", "Role", "team", podReader, null, BOB))).doesNotThrowAnyException();
        assertThatCode(() -> admission.validate(write(Operation.CREATE, "roles", "Role", "team", ROLE_OVER_SECRETS, null, AdmissionTesting.ADMIN)))
                .doesNotThrowAnyException();
    }

    @Test
    void updatesAreCheckedUnlessOnlyGarbageCollectionFieldsChange() {
        String withOwner = ROLE_OVER_SECRETS.replace("'namespace':'team'}", "'namespace':'team','resourceVersion':'9','finalizers':['x'],"
                + "'ownerReferences':[{'apiVersion':'v1','kind':'ConfigMap','name':'o','uid':'u'}]}");
        assertThatCode(() -> admission.validate(write(Operation.UPDATE, "roles", "Role", "team", withOwner, ROLE_OVER_SECRETS, BOB))).doesNotThrowAnyException();
        String withLabel = ROLE_OVER_SECRETS.replace("'namespace':'team'}", "'namespace':'team','labels':{'a':'b'}}");
        assertThatThrownBy(() -> admission.validate(write(Operation.UPDATE, "roles", "Role", "team", withLabel, ROLE_OVER_SECRETS, BOB)))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(403));
    }

    @Test
    void bindingClusterAdminNeedsItsRulesOrTheBindVerb() {
        String binding = "{'apiVersion':'rbac.authorization.k8s.io/v1','kind':'RoleBinding','metadata':{'name':'b','namespace':'team'},"
                + "'roleRef':{'apiGroup':'rbac.authorization.k8s.io','kind':'ClusterRole','name':'cluster-admin'},'subjects':[{'kind':'User','name':'eve'}]}";
        assertThatThrownBy(() -> admission.validate(write(Operation.CREATE, "rolebindings", "RoleBinding", "team", binding, null, BOB)))
                .isInstanceOfSatisfying(StatusException.class, e -> {
                    assertThat(e.code()).isEqualTo(403);
                    assertThat(e.getMessage()).startsWith("rolebindings.rbac.authorization.k8s.io \"b\" is forbidden: user \"bob\"")
                            .contains("is attempting to grant RBAC permissions not currently held");
                });
        assertThatCode(() -> admission.validate(write(Operation.CREATE, "rolebindings", "RoleBinding", "team",
                binding.replace("cluster-admin", "team-admin"), null, BOB))).doesNotThrowAnyException();

        registry.create("clusterroles", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'binder'},'rules':[{'verbs':['bind'],"
                + "'apiGroups':['rbac.authorization.k8s.io'],'resources':['clusterroles'],'resourceNames':['cluster-admin']}]}");
        registry.create("rolebindings", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'bob-binds','namespace':'team'},'roleRef':{'kind':'ClusterRole','name':'binder'},'subjects':[{'kind':'User','name':'bob'}]}");
        assertThatCode(() -> admission.validate(write(Operation.CREATE, "rolebindings", "RoleBinding", "team", binding, null, BOB))).doesNotThrowAnyException();
    }

    @Test
    void bindingAMissingRoleIsNotFound() {
        String binding = "{'apiVersion':'rbac.authorization.k8s.io/v1','kind':'RoleBinding','metadata':{'name':'b','namespace':'team'},"
                + "'roleRef':{'apiGroup':'rbac.authorization.k8s.io','kind':'Role','name':'missing'},'subjects':[{'kind':'User','name':'eve'}]}";
        assertThatThrownBy(() -> admission.validate(write(Operation.CREATE, "rolebindings", "RoleBinding", "team", binding, null, BOB)))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(404));
    }

    @Test
    void aggregationRulesNeedEveryPermission() {
        registry.create("clusterrolebindings", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'bob-crs'},'roleRef':{'kind':'ClusterRole','name':'team-admin'},'subjects':[{'kind':'User','name':'bob'}]}");
        String aggregated = "{'apiVersion':'rbac.authorization.k8s.io/v1','kind':'ClusterRole','metadata':{'name':'agg'},'rules':[],"
                + "'aggregationRule':{'clusterRoleSelectors':[{'matchLabels':{'a':'b'}}]}}";
        assertThatThrownBy(() -> admission.validate(write(Operation.CREATE, "clusterroles", "ClusterRole", "", aggregated, null, BOB)))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.getMessage())
                        .isEqualTo("clusterroles.rbac.authorization.k8s.io \"agg\" is forbidden: must have cluster-admin privileges to use the aggregationRule"));
    }

    @Test
    void runsFirstAmongTheValidatingPlugins() {
        assertThat(AdmissionPlugins.ORDERED.indexOf(RbacEscalationAdmission.NAME)).isEqualTo(1);
        assertThat(AdmissionPlugins.create(registry, new EscalationCheck(RbacPolicySource.of(registry), new RbacAuthorizer(RbacPolicySource.of(registry)),
                new RbacAuthorizer(RbacPolicySource.of(registry))))).anySatisfy(plugin -> assertThat(plugin).isInstanceOf(RbacEscalationAdmission.class));
    }
}
