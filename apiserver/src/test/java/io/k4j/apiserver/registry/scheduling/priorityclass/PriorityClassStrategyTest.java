package io.k4j.apiserver.registry.scheduling.priorityclass;

import static io.k4j.apiserver.registry.groups.StrategyTesting.AGES;
import static io.k4j.apiserver.registry.groups.StrategyTesting.json;
import static io.k4j.apiserver.registry.groups.StrategyTesting.messages;
import static io.k4j.apiserver.registry.groups.StrategyTesting.type;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class PriorityClassStrategyTest {
    private final PriorityClassStrategy strategy = new PriorityClassStrategy(type("scheduling.k8s.io", "priorityclasses"), AGES);

    private ObjectNode priorityClass(String name, long value) {
        ObjectNode object = json("{'metadata': {'name': '" + name + "', 'creationTimestamp': '2024-05-01T11:00:00Z'}, 'value': " + value + "}");
        strategy.applyDefaults(object);
        return object;
    }

    @Test
    void defaultsPreemptionPolicy() {
        assertThat(priorityClass("high", 1000).at("/preemptionPolicy").asText()).isEqualTo("PreemptLowerPriority");
    }

    @Test
    void theSystemPrefixIsReservedForTheBuiltInClasses() {
        assertThat(messages(strategy.validate(priorityClass("system-node-critical", 2000001000)))).isEmpty();
        assertThat(messages(strategy.validate(priorityClass("system-cluster-critical", 5)))).containsExactly(
                "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-cluster-critical PriorityClass must be 2000000000");
        assertThat(messages(strategy.validate(priorityClass("system-mine", 5)))).containsExactly(
                "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class");
    }

    @Test
    void userClassesStayBelowOneBillionAndUseKnownPolicies() {
        ObjectNode object = priorityClass("huge", 1_000_000_001L);
        object.put("preemptionPolicy", "Sometimes");

        assertThat(messages(strategy.validate(object))).containsExactly(
                "value: Forbidden: maximum allowed value of a user defined priority is 1000000000",
                "preemptionPolicy: Unsupported value: \"Sometimes\": supported values: \"PreemptLowerPriority\", \"Never\"");
    }

    @Test
    void valueAndPolicyAreImmutable() {
        ObjectNode old = priorityClass("high", 1000);
        ObjectNode updated = priorityClass("high", 2000);
        updated.put("preemptionPolicy", "Never");

        assertThat(messages(strategy.validateUpdate(updated, old))).containsExactly(
                "value: Forbidden: may not be changed in an update.",
                "preemptionPolicy: Invalid value: \"Never\": field is immutable");
    }

    @Test
    void printsValueDefaultAndPolicy() {
        ObjectNode object = priorityClass("high", 1000);
        object.put("globalDefault", true);

        assertThat(strategy.tableColumns()).extracting(column -> column.name())
                .containsExactly("Name", "Value", "Global-Default", "Age", "PreemptionPolicy");
        assertThat(strategy.tableRow(object)).containsExactly("high", 1000L, true, "60m", "PreemptLowerPriority");
    }
}
