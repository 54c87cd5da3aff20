package io.k4j.apiserver.registry.rbac.clusterrolebinding;

import static io.k4j.apiserver.registry.groups.StrategyTesting.AGES;
import static io.k4j.apiserver.registry.groups.StrategyTesting.json;
import static io.k4j.apiserver.registry.groups.StrategyTesting.messages;
import static io.k4j.apiserver.registry.groups.StrategyTesting.type;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class ClusterRoleBindingStrategyTest {
    private final ClusterRoleBindingStrategy strategy = new ClusterRoleBindingStrategy(type("rbac.authorization.k8s.io", "clusterrolebindings"), AGES);

    @Test
    void bindsOnlyClusterRolesAndServiceAccountsNeedANamespace() {
        ObjectNode object = json("{'roleRef': {'kind': 'Role', 'name': 'view'}, 'subjects': [{'kind': 'ServiceAccount', 'name': 'default'}]}");
        strategy.applyDefaults(object);

        assertThat(messages(strategy.validate(object))).containsExactly(
                "roleRef.kind: Unsupported value: \"Role\": supported values: \"ClusterRole\"",
                "subjects[0].namespace: Required value");
    }

    @Test
    void printsTheBinding() {
        ObjectNode object = json("{'metadata': {'name': 'cluster-admin', 'creationTimestamp': '2024-04-01T12:00:00Z'},"
                + " 'roleRef': {'kind': 'ClusterRole', 'name': 'cluster-admin'}, 'subjects': [{'kind': 'Group', 'name': 'system:masters'}]}");

        assertThat(strategy.tableRow(object)).containsExactly("cluster-admin", "ClusterRole/cluster-admin", "30d", "", "system:masters", "");
        assertThat(strategy.tableColumns().get(3).description()).isEqualTo("Users in the clusterRoleBinding");
    }
}
