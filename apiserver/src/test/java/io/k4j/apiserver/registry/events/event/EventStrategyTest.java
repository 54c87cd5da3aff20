package io.k4j.apiserver.registry.events.event;

import static io.k4j.apiserver.registry.groups.StrategyTesting.AGES;
import static io.k4j.apiserver.registry.groups.StrategyTesting.json;
import static io.k4j.apiserver.registry.groups.StrategyTesting.messages;
import static io.k4j.apiserver.registry.groups.StrategyTesting.type;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class EventStrategyTest {
    private final EventStrategy strategy = new EventStrategy(type("events.k8s.io", "events"), AGES);

    private static ObjectNode event() {
        return json("{'metadata': {'name': 'web.17a', 'namespace': 'default', 'creationTimestamp': '2024-05-01T11:00:00Z'},"
                + " 'eventTime': '2024-05-01T11:00:00.000000Z', 'reportingController': 'k4j.io/deployment-controller', 'reportingInstance': 'cm-1',"
                + " 'action': 'Scale', 'reason': 'ScalingReplicaSet', 'note': ' Scaled up replica set web-1 to 3 ',"
                + " 'regarding': {'kind': 'Deployment', 'namespace': 'default', 'name': 'web'}, 'type': 'Normal'}");
    }

    @Test
    void acceptsANewStyleEvent() {
        assertThat(messages(strategy.validate(event()))).isEmpty();
        assertThat(strategy.allowCreateOnUpdate()).isTrue();
    }

    @Test
    void newStyleEventsNeedTheirFieldsAndNoDeprecatedOnes() {
        ObjectNode object = event();
        object.remove("eventTime");
        object.remove("reportingController");
        object.put("type", "Fatal").put("deprecatedCount", 3);
        object.putObject("deprecatedSource").put("component", "kubelet");
        object.putObject("series").put("count", 1);
        ((ObjectNode) object.get("regarding")).put("namespace", "other");

        assertThat(messages(strategy.validate(object))).containsExactly(
                "involvedObject.namespace: Invalid value: \"other\": does not match event.namespace",
                "series.count: Invalid value: \"\": should be at least 2",
                "series.lastObservedTime: Required value",
                "eventTime: Required value",
                "type: Invalid value: \"\": has invalid value: Fatal",
                "count: Invalid value: \"\": needs to be unset",
                "source: Invalid value: \"\": needs to be unset");
    }

    @Test
    void reportingFieldsAreRequiredOnceEventTimeIsSet() {
        ObjectNode object = event();
        object.remove("reportingController");
        object.remove("action");
        object.put("reason", "x".repeat(129));

        assertThat(messages(strategy.validate(object))).containsExactly(
                "reportingController: Required value",
                "reportingController: Invalid value: \"\": name part must be non-empty",
                "reportingController: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
                "action: Required value",
                "reason: Invalid value: \"\": can have at most 128 characters");
    }

    @Test
    void mostFieldsAreImmutable() {
        ObjectNode old = event();
        ObjectNode updated = event();
        updated.put("note", "changed").put("reason", "Other");
        updated.set("series", json("{'count': 2, 'lastObservedTime': '2024-05-01T11:10:00.000000Z'}"));

        assertThat(messages(strategy.validateUpdate(updated, old))).containsExactly(
                "reason: Invalid value: \"Other\": field is immutable",
                "message: Invalid value: \"changed\": field is immutable");
    }

    @Test
    void selectsOnTheCoreFieldNames() {
        assertThat(strategy.selectableFields(event())).containsEntry("involvedObject.name", "web").containsEntry("involvedObject.kind", "Deployment")
                .containsEntry("reason", "ScalingReplicaSet").containsEntry("reportingComponent", "k4j.io/deployment-controller").containsEntry("type", "Normal");
    }

    @Test
    void selectsTheSameFieldsAsTheCoreFormOfTheSameEvent() {
        EventConversion conversion = new EventConversion();
        io.k4j.apiserver.registry.core.event.EventStrategy core = new io.k4j.apiserver.registry.core.event.EventStrategy(AGES::now);
        ObjectNode withSource = event();
        withSource.set("deprecatedSource", json("{'component': 'kubelet', 'host': 'n1'}"));
        ObjectNode bare = json("{'reason': 'Pulled', 'regarding': {}, 'reportingController': null}");
        for (ObjectNode served : java.util.List.of(event(), withSource, bare)) {
            assertThat(strategy.selectableFields(served)).isEqualTo(core.selectableFields(conversion.toStorage(served)));
        }
    }

    @Test
    void printsAsUpstreamsEventPrinter() {
        assertThat(strategy.tableColumns()).extracting(column -> column.name() + "/" + column.priority()).containsExactly(
                "Last Seen/0", "Type/0", "Reason/0", "Object/0", "Subobject/1", "Source/1", "Message/0", "First Seen/1", "Count/1", "Name/1");
        assertThat(strategy.tableRow(event())).containsExactly("60m", "Normal", "ScalingReplicaSet", "deployment/web", "",
                "k4j.io/deployment-controller, cm-1", "Scaled up replica set web-1 to 3", "60m", 1L, "web.17a");

        ObjectNode repeated = event();
        repeated.set("series", json("{'count': 5, 'lastObservedTime': '2024-05-01T11:58:00.000000Z'}"));
        assertThat(strategy.tableRow(repeated).get(0)).isEqualTo("2m");
        assertThat(strategy.tableRow(repeated).get(8)).isEqualTo(5L);
    }
}
