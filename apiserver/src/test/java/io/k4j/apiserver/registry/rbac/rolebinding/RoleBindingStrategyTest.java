package io.k4j.apiserver.registry.rbac.rolebinding;

import static io.k4j.apiserver.registry.groups.StrategyTesting.AGES;
import static io.k4j.apiserver.registry.groups.StrategyTesting.json;
import static io.k4j.apiserver.registry.groups.StrategyTesting.messages;
import static io.k4j.apiserver.registry.groups.StrategyTesting.type;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class RoleBindingStrategyTest {
    private final RoleBindingStrategy strategy = new RoleBindingStrategy(type("rbac.authorization.k8s.io", "rolebindings"), AGES);

    private ObjectNode binding() {
        ObjectNode object = json("{'metadata': {'name': 'read-pods', 'namespace': 'dev', 'creationTimestamp': '2024-05-01T11:00:00Z'},"
                + " 'roleRef': {'kind': 'Role', 'name': 'pod-reader'}, 'subjects': ["
                + "{'kind': 'User', 'name': 'jane'}, {'kind': 'Group', 'name': 'devs'}, {'kind': 'ServiceAccount', 'name': 'builder', 'namespace': 'ci'}]}");
        strategy.applyDefaults(object);
        return object;
    }

    @Test
    void defaultsApiGroupsOfRoleAndSubjects() {
        ObjectNode object = binding();

        assertThat(object.at("/roleRef/apiGroup").asText()).isEqualTo("rbac.authorization.k8s.io");
        assertThat(object.at("/subjects/0/apiGroup").asText()).isEqualTo("rbac.authorization.k8s.io");
        assertThat(object.at("/subjects/1/apiGroup").asText()).isEqualTo("rbac.authorization.k8s.io");
        assertThat(object.at("/subjects/2/apiGroup").asText()).isEmpty();
        assertThat(messages(strategy.validate(object))).isEmpty();
    }

    @Test
    void rejectsUnknownKindsAndBadNames() {
        ObjectNode object = json("{'roleRef': {'apiGroup': 'example.com', 'kind': 'Policy', 'name': 'a/b'},"
                + " 'subjects': [{'kind': 'Robot', 'name': 'r2'}, {'kind': 'ServiceAccount', 'name': 'Bad_Name', 'apiGroup': 'x'}, {'kind': 'User', 'apiGroup': 'rbac.authorization.k8s.io'}]}");

        assertThat(messages(strategy.validate(object))).containsExactly(
                "roleRef.apiGroup: Unsupported value: \"example.com\": supported values: \"rbac.authorization.k8s.io\"",
                "roleRef.kind: Unsupported value: \"Policy\": supported values: \"Role\", \"ClusterRole\"",
                "roleRef.name: Invalid value: \"a/b\": may not contain '/'",
                "subjects[0].kind: Unsupported value: \"Robot\": supported values: \"ServiceAccount\", \"User\", \"Group\"",
                "subjects[1].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                "subjects[1].apiGroup: Unsupported value: \"x\": supported values: \"\"",
                "subjects[2].name: Required value");
    }

    @Test
    void theRoleReferenceCannotChange() {
        ObjectNode old = binding();
        ObjectNode updated = binding();
        ((ObjectNode) updated.get("roleRef")).put("kind", "ClusterRole");

        assertThat(messages(strategy.validateUpdate(updated, old))).containsExactly(
                "roleRef: Invalid value: rbac.RoleRef{APIGroup:\"rbac.authorization.k8s.io\", Kind:\"ClusterRole\", Name:\"pod-reader\"}: cannot change roleRef");
        assertThat(messages(strategy.validateUpdate(binding(), old))).isEmpty();
    }

    @Test
    void printsRoleAndSubjects() {
        assertThat(strategy.tableColumns()).extracting(column -> column.name() + "/" + column.priority())
                .containsExactly("Name/0", "Role/0", "Age/0", "Users/1", "Groups/1", "ServiceAccounts/1");
        assertThat(strategy.tableRow(binding())).containsExactly("read-pods", "Role/pod-reader", "60m", "jane", "devs", "ci:builder");
    }
}
