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
    public static ObjectNode table(ResourceStrategy strategy, List<ObjectNode> objects, IncludeObject include, String version, ObjectNode listMetadata, boolean withHeaders) {
        ObjectNode table = Json.object();
        table.put("kind", "Table");
        table.put("apiVersion", "meta.k8s.io/" + version);
        table.set("metadata", listMetadata == null ? Json.object() : listMetadata);
        if (withHeaders) {
            ArrayNode columns = table.putArray("columnDefinitions");
            for (TableColumn column : strategy.tableColumns()) {
                columns.addObject()
                        .put("name", column.name())
                        .put("type", column.type())
                        .put("format", column.format())
                        .put("description", column.description())
                        .put("priority", column.priority());
            }
        } else {
            table.putArray("columnDefinitions");
        }
        ArrayNode rows = table.putArray("rows");
        for (ObjectNode object : objects) {
            ObjectNode row = rows.addObject();
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
