package io.k4j.api.apply;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import io.k4j.api.codec.Timestamps;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The field ownership of one object, decoded from and encoded to {@code metadata.managedFields}: per
 * {@link Manager}, the fields it owns, the API version they were written in and when it last changed them.
 *
 * <p>Not thread-safe (mutable; one instance per request).
 */
public final class ManagedFields {
    /** The fields of one manager. */
    public record Entry(FieldSet fields, String apiVersion, Optional<Instant> time) {
        public Entry {
            requireNonNull(fields, "fields is null");
            requireNonNull(apiVersion, "apiVersion is null");
            requireNonNull(time, "time is null");
        }
    }

    private final Map<Manager, Entry> entries = new LinkedHashMap<>();

    public ManagedFields() {}

    /**
     * Decodes {@code metadata.managedFields}; null or absent is empty.
     *
     * @throws IllegalArgumentException when an entry is malformed
     */
    public static ManagedFields decode(JsonNode managedFields) {
        ManagedFields result = new ManagedFields();
        if (managedFields == null || managedFields.isNull() || managedFields.isMissingNode()) {
            return result;
        }
        if (!managedFields.isArray()) {
            throw new IllegalArgumentException("managedFields must be a list");
        }
        for (JsonNode entry : managedFields) {
            if (!entry.isObject()) {
                throw new IllegalArgumentException("a managedFields entry must be an object");
            }
            String fieldsType = entry.path("fieldsType").asText("");
            if (!fieldsType.equals("FieldsV1") && !(fieldsType.isEmpty() && !entry.has("fieldsV1"))) {
                throw new IllegalArgumentException("unsupported FieldsType \"" + fieldsType + "\"");
            }
            String operation = entry.path("operation").asText("");
            Manager manager = new Manager(entry.path("manager").asText(""),
                    operation.isEmpty() ? Manager.Operation.UPDATE : Manager.Operation.fromWireName(operation),
                    entry.path("apiVersion").asText(""), entry.path("subresource").asText(""));
            Optional<Instant> time = entry.hasNonNull("time") ? Optional.of(parseTime(entry.get("time").asText())) : Optional.empty();
            result.entries.put(manager, new Entry(FieldSet.fromFieldsV1(entry.get("fieldsV1")), entry.path("apiVersion").asText(""), time));
        }
        return result;
    }

    private static Instant parseTime(String text) {
        try {
            return Timestamps.parse(text);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("invalid time " + text, e);
        }
    }

    public Map<Manager, Entry> entries() {
        return entries;
    }

    public boolean isEmpty() {
        return entries.isEmpty();
    }

    public Optional<Entry> get(Manager manager) {
        return Optional.ofNullable(entries.get(manager));
    }

    public void put(Manager manager, Entry entry) {
        entries.put(requireNonNull(manager, "manager is null"), requireNonNull(entry, "entry is null"));
    }

    public void remove(Manager manager) {
        entries.remove(manager);
    }

    /** Drops the managers that own nothing. */
    public void removeEmpty() {
        entries.values().removeIf(entry -> entry.fields().isEmpty());
    }

    /**
     * The {@code metadata.managedFields} list in upstream's order: appliers before updaters, then oldest first,
     * then by manager, API version and subresource. Managers that own nothing are left out.
     */
    public ArrayNode encode() {
        List<Map.Entry<Manager, Entry>> sorted = new ArrayList<>(entries.entrySet());
        sorted.removeIf(entry -> entry.getValue().fields().isEmpty());
        sorted.sort(Comparator
                .comparing((Map.Entry<Manager, Entry> entry) -> entry.getKey().operation().wireName())
                .thenComparing(entry -> entry.getValue().time().map(Instant::getEpochSecond).orElse(0L))
                .thenComparing(entry -> entry.getKey().name())
                .thenComparing(entry -> entry.getValue().apiVersion())
                .thenComparing(entry -> entry.getKey().subresource()));
        ArrayNode list = Json.nodeFactory().arrayNode();
        for (Map.Entry<Manager, Entry> entry : sorted) {
            ObjectNode node = list.addObject();
            node.put("manager", entry.getKey().name());
            node.put("operation", entry.getKey().operation().wireName());
            if (!entry.getValue().apiVersion().isEmpty()) {
                node.put("apiVersion", entry.getValue().apiVersion());
            }
            entry.getValue().time().ifPresent(time -> node.put("time", Timestamps.format(time)));
            node.put("fieldsType", "FieldsV1");
            node.set("fieldsV1", entry.getValue().fields().toFieldsV1());
            if (!entry.getKey().subresource().isEmpty()) {
                node.put("subresource", entry.getKey().subresource());
            }
        }
        return list;
    }
}
