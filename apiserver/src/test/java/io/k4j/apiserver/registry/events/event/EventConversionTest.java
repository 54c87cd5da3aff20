package io.k4j.apiserver.registry.events.event;

import static io.k4j.apiserver.registry.groups.StrategyTesting.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.GroupVersionResource;
import org.junit.jupiter.api.Test;

class EventConversionTest {
    private final EventConversion conversion = new EventConversion();

    private static final String SERVED = "{'kind': 'Event', 'apiVersion': 'events.k8s.io/v1',"
            + " 'metadata': {'name': 'web.17a', 'namespace': 'default'}, 'eventTime': '2024-05-01T11:00:00.000000Z',"
            + " 'series': {'count': 2, 'lastObservedTime': '2024-05-01T11:05:00.000000Z'}, 'reportingController': 'example.com/ctl',"
            + " 'reportingInstance': 'ctl-1', 'action': 'Scale', 'reason': 'Scaled', 'note': 'scaled to 3',"
            + " 'regarding': {'kind': 'Deployment', 'namespace': 'default', 'name': 'web'}, 'related': {'kind': 'ReplicaSet', 'name': 'web-1'},"
            + " 'type': 'Normal', 'deprecatedSource': {'component': 'old'}, 'deprecatedFirstTimestamp': '2024-05-01T10:00:00Z',"
            + " 'deprecatedLastTimestamp': '2024-05-01T10:30:00Z', 'deprecatedCount': 4}";

    @Test
    void storesInTheCoreEventsResource() {
        assertThat(conversion.storageResource()).isEqualTo(new GroupVersionResource("", "v1", "events"));
    }

    @Test
    void mapsEveryFieldToItsCoreName() {
        ObjectNode stored = conversion.toStorage(json(SERVED));

        assertThat(stored.toString()).isEqualTo(json("{'kind': 'Event', 'apiVersion': 'v1', 'metadata': {'name': 'web.17a', 'namespace': 'default'},"
                + " 'eventTime': '2024-05-01T11:00:00.000000Z', 'series': {'count': 2, 'lastObservedTime': '2024-05-01T11:05:00.000000Z'},"
                + " 'reportingInstance': 'ctl-1', 'action': 'Scale', 'reason': 'Scaled', 'related': {'kind': 'ReplicaSet', 'name': 'web-1'}, 'type': 'Normal',"
                + " 'message': 'scaled to 3', 'involvedObject': {'kind': 'Deployment', 'namespace': 'default', 'name': 'web'},"
                + " 'reportingComponent': 'example.com/ctl', 'source': {'component': 'old'}, 'firstTimestamp': '2024-05-01T10:00:00Z',"
                + " 'lastTimestamp': '2024-05-01T10:30:00Z', 'count': 4}").toString());
    }

    @Test
    void roundTripsAndReadsLegacyEvents() {
        assertThat(conversion.fromStorage(conversion.toStorage(json(SERVED)))).isEqualTo(json(SERVED));

        ObjectNode legacy = json("{'kind': 'Event', 'apiVersion': 'v1', 'metadata': {'name': 'x'}, 'involvedObject': {'kind': 'Pod', 'name': 'p'},"
                + " 'reason': 'Pulled', 'message': 'pulled', 'source': {}, 'count': 0, 'firstTimestamp': null}");
        assertThat(conversion.fromStorage(legacy)).isEqualTo(json("{'kind': 'Event', 'apiVersion': 'events.k8s.io/v1', 'metadata': {'name': 'x'},"
                + " 'reason': 'Pulled', 'note': 'pulled', 'regarding': {'kind': 'Pod', 'name': 'p'}, 'eventTime': null}"));
    }
}
