package io.k4j.apiserver.registry.apps.controllerrevision;

import static io.k4j.apiserver.registry.groups.StrategyTesting.AGES;
import static io.k4j.apiserver.registry.groups.StrategyTesting.json;
import static io.k4j.apiserver.registry.groups.StrategyTesting.messages;
import static io.k4j.apiserver.registry.groups.StrategyTesting.type;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class ControllerRevisionStrategyTest {
    private final ControllerRevisionStrategy strategy = new ControllerRevisionStrategy(type("apps", "controllerrevisions"), AGES);

    @Test
    void dataIsMandatoryAndRevisionNonNegative() {
        assertThat(messages(strategy.validate(json("{'metadata': {'name': 'web-1'}, 'revision': -2}")))).containsExactly(
                "data: Required value: data is mandatory",
                "revision: Invalid value: -2: must be greater than or equal to 0");
    }

    @Test
    void dataIsImmutable() {
        ObjectNode old = json("{'metadata': {'name': 'web-1'}, 'revision': 1, 'data': {'spec': {'a': 1}}}");
        ObjectNode updated = json("{'metadata': {'name': 'web-1'}, 'revision': 2, 'data': {'spec': {'a': 2}}}");

        assertThat(messages(strategy.validateUpdate(old.deepCopy(), old))).isEmpty();
        assertThat(messages(strategy.validateUpdate(updated, old))).containsExactly("data: Invalid value: {\"spec\":{\"a\":2}}: field is immutable");
    }

    @Test
    void printsTheControllingOwner() {
        ObjectNode revision = json("{'metadata': {'name': 'web-6c8d', 'creationTimestamp': '2024-05-01T10:00:00Z', 'ownerReferences': ["
                + "{'apiVersion': 'v1', 'kind': 'Pod', 'name': 'other'},"
                + "{'apiVersion': 'apps/v1', 'kind': 'StatefulSet', 'name': 'web', 'controller': true}]}, 'revision': 3, 'data': {}}");

        assertThat(strategy.tableRow(revision)).containsExactly("web-6c8d", "statefulset.apps/web", 3L, "120m");
        assertThat(strategy.tableRow(json("{'metadata': {'name': 'x'}, 'revision': 1}")).get(1)).isEqualTo("<none>");
    }
}
