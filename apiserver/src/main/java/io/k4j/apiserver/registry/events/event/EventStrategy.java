package io.k4j.apiserver.registry.events.event;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import io.k4j.apiserver.registry.groups.Ages;
import io.k4j.apiserver.registry.groups.Json;
import io.k4j.apiserver.registry.groups.Validators;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The rules of events.k8s.io/v1 Events, as upstream's {@code pkg/registry/core/event/strategy.go} with
 * {@code ValidateEventCreate}/{@code ValidateEventUpdate} for the events/v1 request version: the legacy checks every
 * event passes plus the strict ones of the new API (eventTime required, Normal or Warning, no deprecated fields,
 * series of at least two, and on update most fields immutable). Rules run on the core form the objects are
 * stored in, so field paths use upstream's internal names. Stateless and thread-safe.
 */
public final class EventStrategy implements ResourceStrategy {
    private static final int REPORTING_INSTANCE_LENGTH_LIMIT = 128;
    private static final int ACTION_LENGTH_LIMIT = 128;
    private static final int REASON_LENGTH_LIMIT = 128;
    private static final int NOTE_LENGTH_LIMIT = 1024;
    private static final List<TableColumn> COLUMNS = List.of(
            TableColumn.string("Last Seen", "The time at which the most recent occurrence of this event was recorded."),
            TableColumn.string("Type", "Type of this event (Normal, Warning), new types could be added in the future"),
            TableColumn.string("Reason", "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
            TableColumn.string("Object", "The object that this event is about."),
            TableColumn.wide("Subobject", "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]."),
            TableColumn.wide("Source", "The component reporting this event. Should be a short machine understandable string."),
            TableColumn.string("Message", "A human-readable description of the status of this operation."),
            TableColumn.wide("First Seen", "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)"),
            TableColumn.wide("Count", "The number of times this event has occurred."),
            new TableColumn("Name", "string", "name", "Name must be unique within a namespace.", 1));

    private final ResourceType type;
    private final Ages ages;
    private final EventConversion conversion = new EventConversion();

    public EventStrategy(ResourceType type, Ages ages) {
        this.type = requireNonNull(type, "type is null");
        this.ages = requireNonNull(ages, "ages is null");
    }

    @Override
    public ResourceType type() {
        return type;
    }

    @Override
    public void prepareForCreate(ObjectNode object) {}

    @Override
    public void prepareForUpdate(ObjectNode newObject, ObjectNode oldObject) {}

    @Override
    public boolean allowCreateOnUpdate() {
        return true;
    }

    @Override
    public FieldErrors validate(ObjectNode object) {
        ObjectNode event = conversion.toStorage(object);
        FieldErrors errors = legacyValidation(event);
        validateSeries(errors, event);
        if (!Json.present(event, "eventTime")) {
            errors.add(FieldError.required("eventTime", ""));
        }
        String eventType = Json.string(event, "type");
        if (!eventType.equals("Normal") && !eventType.equals("Warning")) {
            errors.add(FieldError.invalid("type", "", "has invalid value: " + eventType));
        }
        if (Json.present(event, "firstTimestamp")) {
            errors.add(FieldError.invalid("firstTimestamp", "", "needs to be unset"));
        }
        if (Json.present(event, "lastTimestamp")) {
            errors.add(FieldError.invalid("lastTimestamp", "", "needs to be unset"));
        }
        if (Json.longValue(event, "count") != 0) {
            errors.add(FieldError.invalid("count", "", "needs to be unset"));
        }
        if (!Json.string(event, "source", "component").isEmpty() || !Json.string(event, "source", "host").isEmpty()) {
            errors.add(FieldError.invalid("source", "", "needs to be unset"));
        }
        return errors;
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newObject, ObjectNode oldObject) {
        ObjectNode event = conversion.toStorage(newObject);
        ObjectNode old = conversion.toStorage(oldObject);
        FieldErrors errors = legacyValidation(event);
        if (!Json.semanticEquals(event.get("series"), old.get("series"))) {
            validateSeries(errors, event);
        }
        for (String field : List.of("involvedObject", "reason", "message", "source", "firstTimestamp", "lastTimestamp", "count", "type",
                "eventTime", "action", "related", "reportingComponent", "reportingInstance")) {
            String path = field.equals("reportingComponent") ? "reportingController" : field;
            Validators.immutable(errors, event.get(field), old.get(field), path);
        }
        return errors;
    }

    // Every event, old or new API, must pass these (upstream's legacyValidateEvent for a non-core version).
    private static FieldErrors legacyValidation(ObjectNode event) {
        FieldErrors errors = new FieldErrors();
        String namespace = Json.string(event, "metadata", "namespace");
        String involvedNamespace = Json.string(event, "involvedObject", "namespace");
        if (!Json.present(event, "eventTime")) {
            if (involvedNamespace.isEmpty()) {
                if (!namespace.isEmpty() && !namespace.equals("default")) {
                    errors.add(FieldError.invalid("involvedObject.namespace", involvedNamespace, "does not match event.namespace"));
                }
            } else if (!namespace.equals(involvedNamespace)) {
                errors.add(FieldError.invalid("involvedObject.namespace", involvedNamespace, "does not match event.namespace"));
            }
        } else {
            if (involvedNamespace.isEmpty() && !namespace.equals("default") && !namespace.equals("kube-system")) {
                errors.add(FieldError.invalid("involvedObject.namespace", involvedNamespace, "does not match event.namespace"));
            }
            String controller = Json.string(event, "reportingComponent");
            if (controller.isEmpty()) {
                errors.add(FieldError.required("reportingController", ""));
            }
            for (String message : Validators.qualifiedName(controller)) {
                errors.add(FieldError.invalid("reportingController", controller, message));
            }
            String instance = Json.string(event, "reportingInstance");
            if (instance.isEmpty()) {
                errors.add(FieldError.required("reportingInstance", ""));
            }
            if (instance.length() > REPORTING_INSTANCE_LENGTH_LIMIT) {
                errors.add(FieldError.invalid("reportingInstance", "", "can have at most " + REPORTING_INSTANCE_LENGTH_LIMIT + " characters"));
            }
            String action = Json.string(event, "action");
            if (action.isEmpty()) {
                errors.add(FieldError.required("action", ""));
            }
            if (action.length() > ACTION_LENGTH_LIMIT) {
                errors.add(FieldError.invalid("action", "", "can have at most " + ACTION_LENGTH_LIMIT + " characters"));
            }
            String reason = Json.string(event, "reason");
            if (reason.isEmpty()) {
                errors.add(FieldError.required("reason", ""));
            }
            if (reason.length() > REASON_LENGTH_LIMIT) {
                errors.add(FieldError.invalid("reason", "", "can have at most " + REASON_LENGTH_LIMIT + " characters"));
            }
            if (Json.string(event, "message").length() > NOTE_LENGTH_LIMIT) {
                errors.add(FieldError.invalid("message", "", "can have at most " + NOTE_LENGTH_LIMIT + " characters"));
            }
        }
        for (String message : Validators.dns1123Subdomain(namespace)) {
            errors.add(FieldError.invalid("namespace", namespace, message));
        }
        return errors;
    }

    private static void validateSeries(FieldErrors errors, ObjectNode event) {
        if (Json.present(event, "series")) {
            if (Json.longValue(event, "series", "count") < 2) {
                errors.add(FieldError.invalid("series.count", "", "should be at least 2"));
            }
            if (!Json.present(event, "series", "lastObservedTime")) {
                errors.add(FieldError.required("series.lastObservedTime", ""));
            }
        }
    }

    /** The fields upstream lets field selectors match on events (the core names, as stored). */
    @Override
    public Map<String, String> selectableFields(ObjectNode object) {
        ObjectNode event = conversion.toStorage(object);
        Map<String, String> fields = new LinkedHashMap<>();
        for (String field : List.of("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")) {
            fields.put("involvedObject." + field, Json.string(event, "involvedObject", field));
        }
        fields.put("reason", Json.string(event, "reason"));
        fields.put("reportingComponent", Json.string(event, "reportingComponent"));
        fields.put("source", Json.string(event, "source", "component"));
        fields.put("type", Json.string(event, "type"));
        return fields;
    }

    @Override
    public List<TableColumn> tableColumns() {
        return COLUMNS;
    }

    /** The row of upstream's event printer, computed on the core form (Name is upstream's last, wide column). */
    @Override
    public List<Object> tableRow(ObjectNode object) {
        ObjectNode event = conversion.toStorage(object);
        String firstSeen = Json.present(event, "firstTimestamp")
                ? ages.since(Json.text(event, "firstTimestamp"))
                : ages.since(Json.text(event, "eventTime"));
        String lastSeen = Json.present(event, "lastTimestamp") ? ages.since(Json.text(event, "lastTimestamp")) : firstSeen;
        long count = Json.longValue(event, "count");
        if (Json.present(event, "series")) {
            lastSeen = ages.since(Json.text(event, "series", "lastObservedTime"));
            count = Json.longValue(event, "series", "count");
        } else if (count == 0) {
            // Singleton events of the new API have no count.
            count = 1;
        }
        JsonNode involved = Json.at(event, "involvedObject");
        String kind = Json.string(involved, "kind").toLowerCase(Locale.ROOT);
        String target = Json.string(involved, "name").isEmpty() ? kind : kind + "/" + Json.string(involved, "name");
        String component = firstNonEmpty(Json.string(event, "source", "component"), Json.string(event, "reportingComponent"));
        String instance = firstNonEmpty(Json.string(event, "source", "host"), Json.string(event, "reportingInstance"));
        String source = instance.isEmpty() ? component : component + ", " + instance;
        List<Object> cells = new ArrayList<>();
        cells.add(lastSeen);
        cells.add(Json.string(event, "type"));
        cells.add(Json.string(event, "reason"));
        cells.add(target);
        cells.add(Json.string(involved, "fieldPath"));
        cells.add(source);
        cells.add(Json.string(event, "message").strip());
        cells.add(firstSeen);
        cells.add(count);
        cells.add(Json.string(event, "metadata", "name"));
        return cells;
    }

    private static String firstNonEmpty(String first, String second) {
        return first.isEmpty() ? second : first;
    }
}
