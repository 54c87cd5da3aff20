package io.k4j.apiserver.registry.coordination.lease;

import static io.k4j.apiserver.registry.groups.StrategyTesting.AGES;
import static io.k4j.apiserver.registry.groups.StrategyTesting.json;
import static io.k4j.apiserver.registry.groups.StrategyTesting.messages;
import static io.k4j.apiserver.registry.groups.StrategyTesting.type;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class LeaseStrategyTest {
    private final LeaseStrategy strategy = new LeaseStrategy(type("coordination.k8s.io", "leases"), AGES);

    @Test
    void durationsMustBePositiveAndTransitionsNonNegative() {
        assertThat(messages(strategy.validate(json("{'spec': {'holderIdentity': 'a', 'leaseDurationSeconds': 0, 'leaseTransitions': -1}}")))).containsExactly(
                "spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
                "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0");
        assertThat(messages(strategy.validateUpdate(json("{'spec': {'leaseDurationSeconds': 15}}"), json("{}")))).isEmpty();
    }

    @Test
    void putMayCreateButUpdatesNeedAResourceVersion() {
        assertThat(strategy.allowCreateOnUpdate()).isTrue();
        assertThat(strategy.allowUnconditionalUpdate()).isFalse();
    }

    @Test
    void dropsCoordinatedElectionFields() {
        ObjectNode lease = json("{'spec': {'holderIdentity': 'a', 'strategy': 'OldestEmulationVersion', 'preferredHolder': 'b'}}");

        strategy.prepareForCreate(lease);

        assertThat(lease.get("spec").toString()).isEqualTo("{\"holderIdentity\":\"a\"}");
    }

    @Test
    void printsTheHolder() {
        assertThat(strategy.tableColumns()).extracting(column -> column.name()).containsExactly("Name", "Holder", "Age");
        assertThat(strategy.tableRow(json("{'metadata': {'name': 'node-1', 'creationTimestamp': '2024-05-01T11:59:59Z'}, 'spec': {'holderIdentity': 'node-1'}}")))
                .containsExactly("node-1", "node-1", "1s");
        assertThat(strategy.tableRow(json("{'metadata': {'name': 'free'}, 'spec': {}}"))).containsExactly("free", "", "<unknown>");
    }
}
