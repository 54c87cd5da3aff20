package io.k4j.apiserver.authorization.rbac;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authorization.testing.InMemoryRegistry;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class EscalationCheckTest {
    private static final UserInfo BOB = UserInfo.of("bob", List.of("system:authenticated"));

    private InMemoryRegistry registry;
    private EscalationCheck check;

    @BeforeEach
    void setUp() {
        registry = new InMemoryRegistry();
        registry.create("clusterroles", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'team-admin'},'rules':["
                + "{'verbs':['*'],'apiGroups':['','apps'],'resources':['pods','deployments','*/scale']},"
                + "{'verbs':['create','get'],'apiGroups':['rbac.authorization.k8s.io'],'resources':['roles','rolebindings']}]}");
        registry.create("clusterroles", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'secrets'},'rules':[{'verbs':['get'],'apiGroups':[''],'resources':['secrets']}]}");
        registry.create("rolebindings", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'bob','namespace':'team'},'roleRef':{'kind':'ClusterRole','name':'team-admin'},'subjects':[{'kind':'User','name':'bob'}]}");
        RbacPolicySource policy = new RbacPolicySource(registry, Duration.ZERO, InstantSource.system());
        RbacAuthorizer rbac = new RbacAuthorizer(policy);
        check = new EscalationCheck(policy, rbac, rbac);
    }

    private static PolicyRule rule(String json) {
        return PolicyRule.fromJson(InMemoryRegistry.parse(json));
    }

    @Test
    void rolesWithHeldRulesMayBeWritten() {
        assertThatCode(() -> check.checkRole(BOB, "roles", "team", "r", List.of(
                rule("{'verbs':['get','list'],'apiGroups':[''],'resources':['pods']}"),
                rule("{'verbs':['update'],'apiGroups':['apps'],'resources':['deployments/scale']}")))).doesNotThrowAnyException();
    }

    @Test
    void rolesGrantingMoreAreForbiddenWithUpstreamsMessage() {
        assertThatThrownBy(() -> check.checkRole(BOB, "roles", "team", "r", List.of(rule("{'verbs':['get'],'apiGroups':[''],'resources':['pods','secrets']}"))))
                .isInstanceOfSatisfying(StatusException.class, e -> {
                    assertThat(e.code()).isEqualTo(403);
                    assertThat(e.getMessage()).isEqualTo("roles.rbac.authorization.k8s.io \"r\" is forbidden: user \"bob\" (groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n"
                            + "{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"get\"]}");
                });
        assertThatThrownBy(() -> check.checkRole(BOB, "roles", "other", "r", List.of(rule("{'verbs':['get'],'apiGroups':[''],'resources':['pods']}"))))
                .isInstanceOf(StatusException.class);
    }

    @Test
    void bindingsNeedTheRoleRulesOrTheBindVerb() {
        assertThatCode(() -> check.checkBinding(BOB, "rolebindings", "team", "b", "ClusterRole", "team-admin")).doesNotThrowAnyException();
        assertThatThrownBy(() -> check.checkBinding(BOB, "rolebindings", "team", "b", "ClusterRole", "secrets"))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(403));

        registry.create("clusterroles", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'binder'},'rules':[{'verbs':['bind'],'apiGroups':['rbac.authorization.k8s.io'],'resources':['clusterroles'],'resourceNames':['secrets']}]}");
        registry.create("rolebindings", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'bob-binds','namespace':'team'},'roleRef':{'kind':'ClusterRole','name':'binder'},'subjects':[{'kind':'User','name':'bob'}]}");
        assertThatCode(() -> check.checkBinding(BOB, "rolebindings", "team", "b", "ClusterRole", "secrets")).doesNotThrowAnyException();
    }

    /** Upstream sorts by Go's text of the rule, which starts with the verbs. */
    @Test
    void missingRulesAreCompactedAndSortedAsUpstream() {
        assertThatThrownBy(() -> check.checkRole(BOB, "roles", "team", "r", List.of(
                rule("{'verbs':['list','get'],'apiGroups':[''],'resources':['secrets','configmaps']}"),
                rule("{'verbs':['get'],'nonResourceURLs':['/healthz']}"))))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.getMessage()).endsWith("not currently held:\n"
                        + "{NonResourceURLs:[\"/healthz\"], Verbs:[\"get\"]}\n"
                        + "{APIGroups:[\"\"], Resources:[\"configmaps\"], Verbs:[\"list\" \"get\"]}\n"
                        + "{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"list\" \"get\"]}"));
    }

    @Test
    void mastersAreExempt() {
        UserInfo admin = UserInfo.of("admin", List.of("system:masters"));
        assertThatCode(() -> check.checkRole(admin, "clusterroles", "", "all", List.of(rule("{'verbs':['*'],'apiGroups':['*'],'resources':['*']}")))).doesNotThrowAnyException();
    }

    @Test
    void coverageFollowsUpstream() {
        assertThat(EscalationCheck.covers(rule("{'verbs':['get'],'apiGroups':[''],'resources':['secrets'],'resourceNames':['a']}"),
                rule("{'verbs':['get'],'apiGroups':[''],'resources':['secrets']}"))).isFalse();
        assertThat(EscalationCheck.covers(rule("{'verbs':['get'],'apiGroups':[''],'resources':['secrets']}"),
                rule("{'verbs':['get'],'apiGroups':[''],'resources':['secrets'],'resourceNames':['a']}"))).isTrue();
        assertThat(EscalationCheck.covers(rule("{'verbs':['get'],'nonResourceURLs':['/logs/*']}"), rule("{'verbs':['get'],'nonResourceURLs':['/logs/x']}"))).isTrue();
        assertThat(EscalationCheck.breakdown(rule("{'verbs':['get','list'],'apiGroups':['','apps'],'resources':['pods']}"))).hasSize(4);
    }
}
