package io.k4j.apiserver.registry.events.event;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.core.Trees;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import io.k4j.apiserver.registry.groups.Ages;
import io.k4j.apiserver.registry.groups.Json;
import io.k4j.apiserver.registry.groups.Validators;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The rules of events.k8s.io/v1 Events, as upstream's {@code pkg/registry/core/event/strategy.go} with
 * {@code ValidateEventCreate}/{@code ValidateEventUpdate} for the events/v1 request version: the legacy checks every
 * event passes plus the strict ones of the new API (eventTime required, Normal or Warning, no deprecated fields,
 * series of at least two, and on update most fields immutable). Rules run on the core form the objects are
 * stored in, so field paths use upstream's internal names. Stateless and thread-safe.
 */
public final class EventStrategy implements ResourceStrategy {
    private final ResourceType type;
    private final EventConversion conversion = new EventConversion();
    /** The core/v1 rules, which every event passes on the form it is stored in, and the core printer and fields. */
    private final io.k4j.apiserver.registry.core.event.EventStrategy coreEvents;

    public EventStrategy(ResourceType type, Ages ages) {
        this(type, ages, io.k4j.apiserver.registry.core.event.EventStrategy.DEFAULT_TIME_TO_LIVE);
    }

    /**
     * @param timeToLive how long an event lives after its last write ({@code --event-ttl}); the same as the core
     *     events', as both write the same objects
     */
    public EventStrategy(ResourceType type, Ages ages, Duration timeToLive) {
        this.type = requireNonNull(type, "type is null");
        this.coreEvents = new io.k4j.apiserver.registry.core.event.EventStrategy(requireNonNull(ages, "ages is null")::now, timeToLive);
    }

    @Override
    public Optional<Duration> timeToLive() {
        return coreEvents.timeToLive();
    }

    /** As the core events these are stored as: read from storage, not kept in the watch cache. */
    @Override
    public boolean cachesObjects() {
        return coreEvents.cachesObjects();
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
        FieldErrors errors = coreEvents.validate(event);
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
        FieldErrors errors = coreEvents.validate(event);
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

    /** The fields upstream lets field selectors match on events (the core names, as stored), read from this form's names. */
    @Override
    public Map<String, String> selectableFields(ObjectNode object) {
        return io.k4j.apiserver.registry.core.event.EventStrategy.selectableFields(object.get("regarding"), object.get("reason"),
                object.get("reportingController"), Trees.at(object, "deprecatedSource", "component"), object.get("type"));
    }

    @Override
    public List<TableColumn> tableColumns() {
        return coreEvents.tableColumns();
    }

    /** The row of upstream's event printer, computed on the core form. */
    @Override
    public List<Object> tableRow(ObjectNode object) {
        return coreEvents.tableRow(conversion.toStorage(object));
    }
}
