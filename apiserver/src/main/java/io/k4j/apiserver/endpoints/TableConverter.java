package io.k4j.apiserver.endpoints;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.util.List;

/**
 * Server-side printing: turns objects into a {@code meta.k8s.io} Table with the strategy's columns and cells,
 * and into PartialObjectMetadata, as upstream's TableConvertor and metadata transformation. Thread-safe.
 */
public final class TableConverter {
    public enum IncludeObject { NONE, METADATA, OBJECT }

    private TableConverter() {}

    public static IncludeObject includeObject(String parameter) {
        if (parameter == null || parameter.isEmpty() || parameter.equals("Metadata")) {
            return IncludeObject.METADATA;
        }
        return switch (parameter) {
            case "None" -> IncludeObject.NONE;
            case "Object" -> IncludeObject.OBJECT;
            default -> throw StatusException.badRequest("includeObject: Unsupported value: \"" + parameter + "\": supported values: \"Metadata\", \"None\", \"Object\"");
        };
    }

    /**
     * @param objects the objects, in order
     * @param listMetadata resourceVersion/continue of the list, or null for a single object
     */
    public static ObjectNode table(ResourceStrategy strategy, List<ObjectNode> objects, IncludeObject include, String version, ObjectNode listMetadata) {
        ObjectNode table = envelope(strategy, version, listMetadata);
        ArrayNode rows = table.putArray("rows");
        for (ObjectNode object : objects) {
            rows.add(row(strategy, object, include, version));
        }
        return table;
    }

    /** One object's row: its cells and, as {@code include} asks, its metadata or the whole object. */
    public static ObjectNode row(ResourceStrategy strategy, ObjectNode object, IncludeObject include, String version) {
        ObjectNode row = Json.object();
        ArrayNode cells = row.putArray("cells");
        for (Object cell : strategy.tableRow(object)) {
            cells.add(Json.mapper().valueToTree(cell));
        }
        switch (include) {
            case NONE -> {
                // no object
            }
            case METADATA -> row.set("object", partialObjectMetadata(object, version));
            case OBJECT -> row.set("object", object);
        }
        return row;
    }

    /**
     * The table without its rows: kind, apiVersion, metadata and the strategy's columns. A long list's rows follow it,
     * each encoded as soon as it is made ({@link ListBody}).
     */
    public static ObjectNode envelope(ResourceStrategy strategy, String version, ObjectNode listMetadata) {
        ObjectNode table = Json.object();
        table.put("kind", "Table");
        table.put("apiVersion", "meta.k8s.io/" + version);
        table.set("metadata", listMetadata == null ? Json.object() : listMetadata);
        ArrayNode columns = table.putArray("columnDefinitions");
        for (TableColumn column : strategy.tableColumns()) {
            columns.addObject()
                    .put("name", column.name())
                    .put("type", column.type())
                    .put("format", column.format())
                    .put("description", column.description())
                    .put("priority", column.priority());
        }
        return table;
    }

    public static ObjectNode partialObjectMetadata(ObjectNode object, String version) {
        ObjectNode partial = Json.object();
        partial.put("kind", "PartialObjectMetadata");
        partial.put("apiVersion", "meta.k8s.io/" + version);
        JsonNode metadata = object.get("metadata");
        partial.set("metadata", metadata == null ? Json.object() : metadata);
        return partial;
    }
}
