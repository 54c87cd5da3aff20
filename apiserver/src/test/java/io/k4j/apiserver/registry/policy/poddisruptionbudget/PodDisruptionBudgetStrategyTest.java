package io.k4j.apiserver.registry.policy.poddisruptionbudget;

import static io.k4j.apiserver.registry.groups.StrategyTesting.AGES;
import static io.k4j.apiserver.registry.groups.StrategyTesting.json;
import static io.k4j.apiserver.registry.groups.StrategyTesting.messages;
import static io.k4j.apiserver.registry.groups.StrategyTesting.type;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.apiserver.registry.generic.StatusStrategy;
import org.junit.jupiter.api.Test;

class PodDisruptionBudgetStrategyTest {
    private final PodDisruptionBudgetStrategy strategy = new PodDisruptionBudgetStrategy(type("policy", "poddisruptionbudgets"), AGES);

    @Test
    void acceptsOneBoundAndASelector() {
        assertThat(messages(strategy.validate(json("{'spec': {'minAvailable': '50%', 'selector': {'matchLabels': {'app': 'web'}}}}")))).isEmpty();
    }

    @Test
    void rejectsBothBoundsNegativeAndTooLargeValues() {
        assertThat(messages(strategy.validate(json("{'spec': {'minAvailable': -1, 'maxUnavailable': '120%', 'unhealthyPodEvictionPolicy': 'Never'}}"))))
                .containsExactly(
                        "spec: Invalid value: {\"minAvailable\":-1,\"maxUnavailable\":\"120%\",\"unhealthyPodEvictionPolicy\":\"Never\"}: minAvailable and maxUnavailable cannot be both set",
                        "spec.minAvailable: Invalid value: -1: must be greater than or equal to 0",
                        "spec.maxUnavailable: Invalid value: 120%: must not be greater than 100%",
                        "spec.unhealthyPodEvictionPolicy: Unsupported value: \"Never\": supported values: \"AlwaysAllow\", \"IfHealthyBudget\"");
    }

    @Test
    void statusIsTheControllersAndSpecTheUsers() {
        ObjectNode old = json("{'metadata': {'generation': 1}, 'spec': {'maxUnavailable': 1}, 'status': {'disruptionsAllowed': 1}}");
        ObjectNode specChange = json("{'metadata': {}, 'spec': {'maxUnavailable': 2}, 'status': {'disruptionsAllowed': 5}}");
        strategy.prepareForUpdate(specChange, old);
        assertThat(specChange.at("/status/disruptionsAllowed").asInt()).isEqualTo(1);
        assertThat(specChange.at("/metadata/generation").asLong()).isEqualTo(2);

        StatusStrategy status = new StatusStrategy(strategy, PodDisruptionBudgetStrategy::validateStatusUpdate, false);
        ObjectNode statusChange = json("{'metadata': {}, 'spec': {'maxUnavailable': 3}, 'status': {'disruptionsAllowed': -2}}");
        status.prepareForUpdate(statusChange, old);
        assertThat(statusChange.at("/spec/maxUnavailable").asInt()).isEqualTo(1);
        assertThat(messages(status.validateUpdate(statusChange, old)))
                .containsExactly("status.disruptionsAllowed: Invalid value: -2: must be greater than or equal to 0");
    }

    @Test
    void printsBoundsOrNotApplicable() {
        assertThat(strategy.tableRow(json("{'metadata': {'name': 'web', 'creationTimestamp': '2024-05-01T11:50:00Z'}, 'spec': {'minAvailable': 2}, 'status': {'disruptionsAllowed': 1}}")))
                .containsExactly("web", "2", "N/A", 1L, "10m");
        assertThat(strategy.tableColumns()).extracting(column -> column.name())
                .containsExactly("Name", "Min Available", "Max Unavailable", "Allowed Disruptions", "Age");
    }
}
