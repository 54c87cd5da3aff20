package io.k4j.apiserver.registry.rbac.role;

import static io.k4j.apiserver.registry.groups.StrategyTesting.json;
import static io.k4j.apiserver.registry.groups.StrategyTesting.messages;
import static io.k4j.apiserver.registry.groups.StrategyTesting.type;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RoleStrategyTest {
    private final RoleStrategy strategy = new RoleStrategy(type("rbac.authorization.k8s.io", "roles"));

    @Test
    void acceptsResourceRules() {
        assertThat(messages(strategy.validate(json("{'metadata': {'name': 'reader'}, 'rules': [{'apiGroups': [''], 'resources': ['pods'], 'verbs': ['get', 'list']}]}"))))
                .isEmpty();
    }

    @Test
    void rulesNeedVerbsGroupsAndResourcesAndNoUrls() {
        assertThat(messages(strategy.validate(json("{'rules': [{'resources': ['pods']}, {'verbs': ['get'], 'nonResourceURLs': ['/healthz'], 'resources': ['pods']}]}"))))
                .containsExactly(
                        "rules[0].verbs: Required value: verbs must contain at least one value",
                        "rules[0].apiGroups: Required value: resource rules must supply at least one api group",
                        "rules[1].nonResourceURLs: Invalid value: []string{\"/healthz\"}: namespaced rules cannot apply to non-resource URLs",
                        "rules[1].nonResourceURLs: Invalid value: []string{\"/healthz\"}: rules cannot apply to both regular resources and non-resource URLs");
    }

    @Test
    void namesArePathSegmentsSoSystemRolesCanExist() {
        assertThat(strategy.nameValidator().validate("system:controller:job-controller", false)).isEmpty();
        assertThat(strategy.nameValidator().validate("a/b", false)).containsExactly("may not contain '/'");
    }

    @Test
    void printsNameAndCreationTime() {
        assertThat(strategy.tableColumns()).extracting(column -> column.name() + ":" + column.type()).containsExactly("Name:string", "Created At:date");
        assertThat(strategy.tableRow(json("{'metadata': {'name': 'reader', 'creationTimestamp': '2024-05-01T10:00:00.123Z'}}")))
                .containsExactly("reader", "2024-05-01T10:00:00Z");
    }
}
