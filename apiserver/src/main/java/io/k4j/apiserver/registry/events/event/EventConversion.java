package io.k4j.apiserver.registry.events.event;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.GroupVersionResource;
import io.k4j.apiserver.registry.generic.VersionConversion;
import io.k4j.apiserver.registry.groups.Json;
import java.util.List;

/**
 * events.k8s.io/v1 Events are stored as core/v1 Events, as upstream does; this converts between the two forms
 * with upstream's field mapping: {@code note} is {@code message}, {@code regarding} is {@code involvedObject},
 * {@code reportingController} is {@code reportingComponent}, and the {@code deprecated*} fields are the core
 * event's {@code source}, {@code firstTimestamp}, {@code lastTimestamp} and {@code count}. Fields with the same
 * name ({@code eventTime}, {@code series}, {@code reportingInstance}, {@code action}, {@code reason},
 * {@code related}, {@code type}) are copied. Stateless and thread-safe.
 */
public final class EventConversion implements VersionConversion {
    private static final GroupVersionResource CORE_EVENTS = new GroupVersionResource("", "v1", "events");
    private static final List<String> SHARED_FIELDS = List.of("metadata", "eventTime", "series", "reportingInstance", "action", "reason", "related", "type");
    /** Pairs of (events.k8s.io name, core name). */
    private static final List<List<String>> RENAMED_FIELDS = List.of(
            List.of("note", "message"),
            List.of("regarding", "involvedObject"),
            List.of("reportingController", "reportingComponent"),
            List.of("deprecatedSource", "source"),
            List.of("deprecatedFirstTimestamp", "firstTimestamp"),
            List.of("deprecatedLastTimestamp", "lastTimestamp"),
            List.of("deprecatedCount", "count"));

    @Override
    public GroupVersionResource storageResource() {
        return CORE_EVENTS;
    }

    @Override
    public ObjectNode toStorage(ObjectNode served) {
        ObjectNode stored = Json.newObject();
        stored.put("kind", "Event");
        stored.put("apiVersion", "v1");
        copy(served, stored, SHARED_FIELDS);
        for (List<String> pair : RENAMED_FIELDS) {
            copy(served, pair.get(0), stored, pair.get(1));
        }
        return stored;
    }

    @Override
    public ObjectNode fromStorage(ObjectNode stored) {
        ObjectNode served = Json.newObject();
        served.put("kind", "Event");
        served.put("apiVersion", "events.k8s.io/v1");
        copy(stored, served, SHARED_FIELDS);
        for (List<String> pair : RENAMED_FIELDS) {
            copy(stored, pair.get(1), served, pair.get(0));
        }
        // Upstream's events/v1 always carries eventTime (it is not omitempty); a core event may lack it.
        if (!served.has("eventTime")) {
            served.putNull("eventTime");
        }
        return served;
    }

    private static void copy(ObjectNode from, ObjectNode to, List<String> fields) {
        for (String field : fields) {
            copy(from, field, to, field);
        }
    }

    private static void copy(ObjectNode from, String fromField, ObjectNode to, String toField) {
        JsonNode value = from.get(fromField);
        boolean emptyObject = value != null && value.isObject() && value.isEmpty() && !fromField.equals("metadata");
        // Both forms omit a zero count.
        boolean zeroCount = value != null && value.isNumber() && value.asLong() == 0 && (fromField.equals("count") || fromField.equals("deprecatedCount"));
        if (value != null && !value.isNull() && !emptyObject && !zeroCount) {
            to.set(toField, value.deepCopy());
        }
    }
}
