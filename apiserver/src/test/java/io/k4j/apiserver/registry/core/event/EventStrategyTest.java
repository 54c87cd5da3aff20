package io.k4j.apiserver.registry.core.event;

import static io.k4j.apiserver.registry.core.Json.messages;
import static io.k4j.apiserver.registry.core.Json.object;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EventStrategyTest {
    private final EventStrategy strategy = new EventStrategy(InstantSource.fixed(Instant.parse("2026-01-01T00:10:00Z")));

    @Test
    void legacyEventsMustBeInTheNamespaceOfTheirObject() {
        ObjectNode event = object("{'metadata':{'name':'e','namespace':'default'},'involvedObject':{'kind':'Pod','name':'p','namespace':'other'}}");
        assertThat(messages(strategy.validate(event))).containsExactly(
                "involvedObject.namespace: Invalid value: \"other\": does not match event.namespace");
        assertThat(strategy.validate(object("{'metadata':{'name':'e','namespace':'default'},'involvedObject':{'kind':'Node','name':'n1'}}")).isEmpty()).isTrue();
        assertThat(strategy.validate(object("{'metadata':{'name':'e','namespace':'team'},'involvedObject':{'kind':'Pod','name':'p','namespace':'team'}}")).isEmpty()).isTrue();
    }

    @Test
    void eventsWithAnEventTimeNeedReportingFields() {
        ObjectNode event = object("{'metadata':{'name':'e','namespace':'team'},'eventTime':'2026-01-01T00:00:00.000000Z',"
                + "'involvedObject':{'kind':'Pod','name':'p','namespace':'team'},'reportingComponent':'kubelet','reason':'" + "r".repeat(129) + "'}");
        assertThat(messages(strategy.validate(event))).containsExactly(
                "reportingInstance: Required value",
                "action: Required value",
                "reason: Invalid value: \"\": can have at most 128 characters");
        ObjectNode complete = object("{'metadata':{'name':'e','namespace':'team'},'eventTime':'2026-01-01T00:00:00.000000Z',"
                + "'involvedObject':{'kind':'Pod','name':'p','namespace':'team'},'reportingComponent':'kubelet','reportingInstance':'n1',"
                + "'action':'Pulling','reason':'Pulling'}");
        assertThat(strategy.validate(complete).isEmpty()).isTrue();
        ObjectNode anonymous = complete.deepCopy();
        anonymous.remove("reportingComponent");
        assertThat(messages(strategy.validate(anonymous))).startsWith(
                "reportingController: Required value", "reportingController: Invalid value: \"\": name part must be non-empty");
        assertThat(strategy.allowCreateOnUpdate()).isTrue();
    }

    @Test
    void selectsOnInvolvedObjectReasonSourceAndType() {
        ObjectNode event = object("{'involvedObject':{'kind':'Pod','name':'p','namespace':'team','uid':'u1','fieldPath':'spec.containers{c}'},"
                + "'reason':'Pulled','type':'Normal','source':{'component':'kubelet','host':'n1'}}");
        Map<String, String> fields = strategy.selectableFields(event);
        assertThat(fields).containsEntry("involvedObject.kind", "Pod").containsEntry("involvedObject.name", "p")
                .containsEntry("involvedObject.uid", "u1").containsEntry("involvedObject.fieldPath", "spec.containers{c}")
                .containsEntry("involvedObject.resourceVersion", "").containsEntry("reason", "Pulled")
                .containsEntry("source", "kubelet").containsEntry("type", "Normal").containsEntry("reportingComponent", "");
        assertThat(strategy.selectableFields(object("{'reportingComponent':'scheduler'}"))).containsEntry("source", "scheduler");
    }

    @Test
    void printsLastSeenObjectSourceAndCount() {
        assertThat(strategy.tableColumns()).extracting(TableColumn::name).containsExactly(
                "Last Seen", "Type", "Reason", "Object", "Subobject", "Source", "Message", "First Seen", "Count", "Name");
        assertThat(strategy.tableColumns()).extracting(TableColumn::priority).containsExactly(0, 0, 0, 0, 1, 1, 0, 1, 1, 1);
        ObjectNode legacy = object("{'metadata':{'name':'p.1'},'involvedObject':{'kind':'Pod','name':'p','fieldPath':'spec.containers{c}'},"
                + "'reason':'Pulled','type':'Normal','message':' Pulled image \\n','source':{'component':'kubelet','host':'n1'},"
                + "'firstTimestamp':'2026-01-01T00:00:00Z','lastTimestamp':'2026-01-01T00:09:00Z','count':4}");
        assertThat(strategy.tableRow(legacy)).containsExactly(
                "60s", "Normal", "Pulled", "pod/p", "spec.containers{c}", "kubelet, n1", "Pulled image", "10m", 4L, "p.1");
        ObjectNode series = object("{'metadata':{'name':'s.1'},'involvedObject':{'kind':'Node','name':'n1'},'reason':'Rebooted','type':'Warning',"
                + "'reportingComponent':'kubelet','reportingInstance':'n1','eventTime':'2026-01-01T00:05:00.000000Z',"
                + "'series':{'count':3,'lastObservedTime':'2026-01-01T00:08:00.000000Z'}}");
        assertThat(strategy.tableRow(series)).containsExactly("2m", "Warning", "Rebooted", "node/n1", "", "kubelet, n1", "", "5m", 3L, "s.1");
        ObjectNode single = object("{'metadata':{'name':'x'},'involvedObject':{'kind':'Pod'},'eventTime':'2026-01-01T00:09:30.000000Z'}");
        assertThat(strategy.tableRow(single)).containsExactly("30s", "", "", "pod", "", "", "", "30s", 1L, "x");
    }
}
