package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldErrors;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

/**
 * Rules for a resource without special ones: when the resource has a status subresource, create clears
 * {@code status} and update ignores it (the {@link #statusStrategy() status strategy} does the reverse), and
 * {@code metadata.generation} starts at 1 and grows when anything but status and metadata changes. Tables show
 * Name and Age. Immutable and thread-safe.
 */
public final class GenericStrategy implements ResourceStrategy {
    private final ResourceType type;
    private final boolean hasStatus;
    private final InstantSource clock;
    private final boolean forStatus;

    public GenericStrategy(ResourceType type, InstantSource clock) {
        this(type, type.subresources().contains("status"), clock, false);
    }

    private GenericStrategy(ResourceType type, boolean hasStatus, InstantSource clock, boolean forStatus) {
        this.type = requireNonNull(type, "type is null");
        this.hasStatus = hasStatus;
        this.clock = requireNonNull(clock, "clock is null");
        this.forStatus = forStatus;
    }

    /** The rules of the {@code status} subresource: only status changes, the rest is kept from the stored object. */
    public GenericStrategy statusStrategy() {
        return new GenericStrategy(type, true, clock, true);
    }

    /** A definition serving the resource with this strategy and, when it has one, its status subresource. */
    public ResourceDefinition definition() {
        return hasStatus ? ResourceDefinition.withStatus(this, statusStrategy()) : ResourceDefinition.of(this);
    }

    @Override
    public ResourceType type() {
        return type;
    }

    @Override
    public void prepareForCreate(ObjectNode object) {
        if (hasStatus) {
            object.remove("status");
            ObjectMetadata.of(object).put("generation", 1);
        }
    }

    @Override
    public void prepareForUpdate(ObjectNode newObject, ObjectNode oldObject) {
        if (forStatus) {
            JsonNode status = newObject.get("status");
            ObjectNode metadata = newObject.deepCopy().with("metadata");
            newObject.removeAll();
            newObject.setAll(oldObject.deepCopy());
            newObject.remove("status");
            if (status != null) {
                newObject.set("status", status);
            }
            // Status writers may change labels and annotations, as upstream's status strategies allow.
            copyIfPresent(metadata, ObjectMetadata.of(newObject), "labels");
            copyIfPresent(metadata, ObjectMetadata.of(newObject), "annotations");
            return;
        }
        if (!hasStatus) {
            return;
        }
        JsonNode oldStatus = oldObject.get("status");
        newObject.remove("status");
        if (oldStatus != null) {
            newObject.set("status", oldStatus.deepCopy());
        }
        long oldGeneration = oldObject.path("metadata").path("generation").asLong(0);
        ObjectMetadata.of(newObject).put("generation", specChanged(newObject, oldObject) ? oldGeneration + 1 : oldGeneration);
    }

    private static void copyIfPresent(ObjectNode from, ObjectNode to, String field) {
        if (from.has(field)) {
            to.set(field, from.get(field));
        } else {
            to.remove(field);
        }
    }

    private static boolean specChanged(ObjectNode newObject, ObjectNode oldObject) {
        ObjectNode newBody = newObject.deepCopy();
        ObjectNode oldBody = oldObject.deepCopy();
        for (ObjectNode body : List.of(newBody, oldBody)) {
            body.remove("metadata");
            body.remove("status");
        }
        return !newBody.equals(oldBody);
    }

    @Override
    public FieldErrors validate(ObjectNode object) {
        return new FieldErrors();
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newObject, ObjectNode oldObject) {
        return new FieldErrors();
    }

    @Override
    public List<TableColumn> tableColumns() {
        return List.of(TableColumn.nameColumn(), TableColumn.ageColumn());
    }

    @Override
    public List<Object> tableRow(ObjectNode object) {
        List<Object> cells = new ArrayList<>(2);
        cells.add(ObjectMetadata.text(object, "name"));
        cells.add(age(ObjectMetadata.text(object, "creationTimestamp"), clock));
        return cells;
    }

    /** Upstream's {@code HumanDuration} of the time since {@code timestamp}, or {@code <unknown>}. */
    public static String age(String timestamp, InstantSource clock) {
        return HumanDuration.since(timestamp, clock.instant());
    }
}
