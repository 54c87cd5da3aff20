package io.k4j.apiserver.registry.rbac.clusterrole;

import static io.k4j.apiserver.registry.groups.StrategyTesting.json;
import static io.k4j.apiserver.registry.groups.StrategyTesting.messages;
import static io.k4j.apiserver.registry.groups.StrategyTesting.type;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ClusterRoleStrategyTest {
    private final ClusterRoleStrategy strategy = new ClusterRoleStrategy(type("rbac.authorization.k8s.io", "clusterroles"));

    @Test
    void clusterRulesMayNameNonResourceUrls() {
        assertThat(messages(strategy.validate(json("{'metadata': {'name': 'system:discovery'}, 'rules': [{'verbs': ['get'], 'nonResourceURLs': ['/api', '/api/*']}]}"))))
                .isEmpty();
    }

    @Test
    void aggregationNeedsValidSelectors() {
        assertThat(messages(strategy.validate(json("{'aggregationRule': {'clusterRoleSelectors': []}}"))))
                .containsExactly("aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil");
        assertThat(messages(strategy.validate(json("{'aggregationRule': {'clusterRoleSelectors': [{'matchExpressions': [{'key': 'a', 'operator': 'Near'}]}]}}"))))
                .containsExactly(
                        "aggregationRule.clusterRoleSelectors[0].matchExpressions[0].operator: Invalid value: \"Near\": not a valid selector operator",
                        "aggregationRule.clusterRoleSelectors[0]: Invalid value: {\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Near\"}]}: invalid label selector.");
    }

    @Test
    void updatesAreValidatedAsNew() {
        assertThat(messages(strategy.validateUpdate(json("{'rules': [{'verbs': ['get'], 'apiGroups': ['']}]}"), json("{}"))))
                .containsExactly("rules[0].resources: Required value: resource rules must supply at least one resource");
    }
}
