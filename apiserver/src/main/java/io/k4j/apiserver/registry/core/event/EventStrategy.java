package io.k4j.apiserver.registry.core.event;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.NameValidation;
import io.k4j.apiserver.registry.core.CoreResources;
import io.k4j.apiserver.registry.core.Printing;
import io.k4j.apiserver.registry.core.Trees;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The rules of core/v1 events, as upstream's {@code eventStrategy} and its legacy event validation: an old-style event
 * (no {@code eventTime}) must live in its involved object's namespace; a new-style one needs its reporting component,
 * instance, action and reason. A PUT may create. The table starts with "Last Seen" like upstream's. Thread-safe.
 */
public final class EventStrategy implements ResourceStrategy {
    private static final ResourceType TYPE = CoreResources.type("events");
    private static final int REPORTING_INSTANCE_LIMIT = 128;
    private static final int ACTION_LIMIT = 128;
    private static final int REASON_LIMIT = 128;
    private static final int NOTE_LIMIT = 1024;
    static final List<TableColumn> COLUMNS = List.of(
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

    /** The fields of the involved object that field selectors match, and their selector names. */
    private static final String[] INVOLVED_OBJECT_FIELDS = {"kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"};
    private static final String[] INVOLVED_OBJECT_SELECTORS = new String[INVOLVED_OBJECT_FIELDS.length];

    static {
        for (int i = 0; i < INVOLVED_OBJECT_FIELDS.length; i++) {
            INVOLVED_OBJECT_SELECTORS[i] = "involvedObject." + INVOLVED_OBJECT_FIELDS[i];
        }
    }

    /** Upstream's default {@code --event-ttl}. */
    public static final Duration DEFAULT_TIME_TO_LIVE = Duration.ofHours(1);

    private final java.time.InstantSource clock;
    private final Duration timeToLive;

    public EventStrategy(java.time.InstantSource clock) {
        this(clock, DEFAULT_TIME_TO_LIVE);
    }

    /**
     * @param timeToLive how long an event lives after its last write ({@code --event-ttl})
     */
    public EventStrategy(java.time.InstantSource clock, Duration timeToLive) {
        this.clock = requireNonNull(clock, "clock is null");
        this.timeToLive = requireNonNull(timeToLive, "timeToLive is null");
        if (timeToLive.isNegative() || timeToLive.isZero()) {
            throw new IllegalArgumentException("timeToLive must be positive: " + timeToLive);
        }
    }

    @Override
    public Optional<Duration> timeToLive() {
        return Optional.of(timeToLive);
    }

    /**
     * Events are many, written often and rarely read: upstream keeps them out of its watch cache and reads them from
     * etcd, and so does k4j, so that a busy cluster's events do not fill the server's heap for their hour.
     */
    @Override
    public boolean cachesObjects() {
        return false;
    }

    @Override
    public ResourceType type() {
        return TYPE;
    }

    @Override
    public void prepareForCreate(ObjectNode event) {}

    @Override
    public void prepareForUpdate(ObjectNode newEvent, ObjectNode oldEvent) {}

    @Override
    public FieldErrors validate(ObjectNode event) {
        FieldErrors errors = new FieldErrors();
        String namespace = Trees.text(event, "metadata", "namespace");
        String involvedNamespace = Trees.text(event, "involvedObject", "namespace");
        if (!Trees.has(event, "eventTime")) {
            boolean matches = involvedNamespace.isEmpty()
                    ? namespace.isEmpty() || namespace.equals("default")
                    : namespace.equals(involvedNamespace);
            if (!matches) {
                errors.add(FieldError.invalid("involvedObject.namespace", involvedNamespace, "does not match event.namespace"));
            }
        } else {
            if (involvedNamespace.isEmpty() && !namespace.equals("default") && !namespace.equals("kube-system")) {
                errors.add(FieldError.invalid("involvedObject.namespace", involvedNamespace, "does not match event.namespace"));
            }
            String reportingComponent = Trees.text(event, "reportingComponent");
            // Upstream names the internal field (ReportingController) in these paths, not the JSON one.
            if (reportingComponent.isEmpty()) {
                errors.add(FieldError.required("reportingController", ""));
            }
            NameValidation.isQualifiedName(reportingComponent).forEach(message -> errors.add(FieldError.invalid("reportingController", reportingComponent, message)));
            limited(event, "reportingInstance", REPORTING_INSTANCE_LIMIT, true, errors);
            limited(event, "action", ACTION_LIMIT, true, errors);
            limited(event, "reason", REASON_LIMIT, true, errors);
            limited(event, "message", NOTE_LIMIT, false, errors);
        }
        NameValidation.isDns1123Subdomain(namespace).forEach(message -> errors.add(FieldError.invalid("namespace", namespace, message)));
        return errors;
    }

    private static void limited(JsonNode event, String field, int limit, boolean required, FieldErrors errors) {
        String value = Trees.text(event, field);
        if (required && value.isEmpty()) {
            errors.add(FieldError.required(field, ""));
        }
        if (value.length() > limit) {
            errors.add(FieldError.invalid(field, "", "can have at most " + limit + " characters"));
        }
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newEvent, ObjectNode oldEvent) {
        return validate(newEvent);
    }

    @Override
    public boolean allowCreateOnUpdate() {
        return true;
    }

    @Override
    public Map<String, String> selectableFields(ObjectNode event) {
        return selectableFields(event.get("involvedObject"), event.get("reason"), event.get("reportingComponent"),
                Trees.at(event, "source", "component"), event.get("type"));
    }

    /**
     * The fields upstream lets field selectors match on events, from an event's parts in whichever version names them
     * (events.k8s.io's {@code regarding} is the core {@code involvedObject}), so that neither version is converted to
     * the other for it: the source is {@code source.component}, else the reporting component.
     */
    public static Map<String, String> selectableFields(JsonNode involvedObject, JsonNode reason, JsonNode reportingComponent, JsonNode sourceComponent,
            JsonNode type) {
        Map<String, String> fields = new HashMap<>(16);
        for (int i = 0; i < INVOLVED_OBJECT_FIELDS.length; i++) {
            fields.put(INVOLVED_OBJECT_SELECTORS[i], Trees.text(involvedObject, INVOLVED_OBJECT_FIELDS[i]));
        }
        String source = Trees.text(sourceComponent);
        fields.put("reason", Trees.text(reason));
        fields.put("reportingComponent", Trees.text(reportingComponent));
        fields.put("source", source.isEmpty() ? Trees.text(reportingComponent) : source);
        fields.put("type", Trees.text(type));
        return fields;
    }

    @Override
    public List<TableColumn> tableColumns() {
        return COLUMNS;
    }

    @Override
    public List<Object> tableRow(ObjectNode event) {
        Instant now = clock.instant();
        String firstSeen = Trees.has(event, "firstTimestamp")
                ? Printing.since(Trees.at(event, "firstTimestamp"), now)
                : Printing.since(Trees.at(event, "eventTime"), now);
        String lastSeen = Trees.has(event, "lastTimestamp") ? Printing.since(Trees.at(event, "lastTimestamp"), now) : firstSeen;
        long count = Trees.integer(event, "count");
        if (Trees.has(event, "series")) {
            lastSeen = Printing.since(Trees.at(event, "series", "lastObservedTime"), now);
            count = Trees.integer(event, "series", "count");
        } else if (count == 0) {
            // Events written through events.k8s.io carry no count: each is one occurrence.
            count = 1;
        }
        String kind = Trees.text(event, "involvedObject", "kind").toLowerCase(Locale.ROOT);
        String name = Trees.text(event, "involvedObject", "name");
        String component = first(Trees.text(event, "source", "component"), Trees.text(event, "reportingComponent"));
        String instance = first(Trees.text(event, "source", "host"), Trees.text(event, "reportingInstance"));
        List<Object> cells = new ArrayList<>();
        cells.add(lastSeen);
        cells.add(Trees.text(event, "type"));
        cells.add(Trees.text(event, "reason"));
        cells.add(name.isEmpty() ? kind : kind + "/" + name);
        cells.add(Trees.text(event, "involvedObject", "fieldPath"));
        cells.add(instance.isEmpty() ? component : component + ", " + instance);
        cells.add(Trees.text(event, "message").strip());
        cells.add(firstSeen);
        cells.add(count);
        cells.add(Trees.text(event, "metadata", "name"));
        return cells;
    }

    private static String first(String value, String fallback) {
        return value.isEmpty() ? fallback : value;
    }
}
