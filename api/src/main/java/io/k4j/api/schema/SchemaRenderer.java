package io.k4j.api.schema;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.GroupVersionKind;
import java.util.List;
import java.util.Optional;

/**
 * Renders definitions as OpenAPI schema objects, the same for Swagger 2.0 ({@code #/definitions/}) and
 * OpenAPI 3.0 ({@code #/components/schemas/}) except where upstream differs (the scalar apimachinery types).
 * Stateless and thread-safe.
 */
final class SchemaRenderer {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final String referencePrefix;
    private final boolean version3;

    private SchemaRenderer(String referencePrefix, boolean version3) {
        this.referencePrefix = referencePrefix;
        this.version3 = version3;
    }

    static SchemaRenderer version2() {
        return new SchemaRenderer("#/definitions/", false);
    }

    static SchemaRenderer version3() {
        return new SchemaRenderer("#/components/schemas/", true);
    }

    ObjectNode reference(String definition) {
        ObjectNode node = NODES.objectNode();
        node.put("$ref", referencePrefix + definition);
        return node;
    }

    ObjectNode definition(Definition definition) {
        ModelDocumentation.TypeDocumentation documentation = Schemas.builtin().modelClass(definition.name())
                .map(ModelDocumentation.shared()::of)
                .orElse(ModelDocumentation.TypeDocumentation.NONE);
        ObjectNode node = NODES.objectNode();
        documentation.description().ifPresent(description -> node.put("description", description));
        switch (definition.kind()) {
            case OBJECT -> {
                if (!definition.fields().isEmpty()) {
                    ObjectNode properties = node.putObject("properties");
                    for (Field field : definition.fields().values()) {
                        properties.set(field.name(), field(field, documentation.field(field.name())));
                    }
                }
                node.put("type", "object");
            }
            case QUANTITY -> {
                if (version3) {
                    // upstream's Quantity accepts a string or a number in v3; v2 has no oneOf
                    ArrayNode oneOf = node.putArray("oneOf");
                    oneOf.addObject().put("type", "string");
                    oneOf.addObject().put("type", "number");
                } else {
                    node.put("type", "string");
                }
            }
            case INT_OR_STRING -> {
                node.put("format", "int-or-string");
                if (version3) {
                    ArrayNode oneOf = node.putArray("oneOf");
                    oneOf.addObject().put("type", "integer");
                    oneOf.addObject().put("type", "string");
                } else {
                    node.put("type", "string");
                }
            }
            case TIME, MICRO_TIME -> {
                node.put("format", "date-time");
                node.put("type", "string");
            }
            case RAW_EXTENSION, FIELDS_V1 -> node.put("type", "object");
        }
        if (!definition.groupVersionKinds().isEmpty()) {
            node.set("x-kubernetes-group-version-kind", groupVersionKinds(definition.groupVersionKinds()));
        }
        return node;
    }

    static ArrayNode groupVersionKinds(List<GroupVersionKind> kinds) {
        ArrayNode array = NODES.arrayNode();
        for (GroupVersionKind kind : kinds) {
            array.add(groupVersionKind(kind));
        }
        return array;
    }

    static ObjectNode groupVersionKind(GroupVersionKind kind) {
        ObjectNode node = NODES.objectNode();
        node.put("group", kind.group());
        node.put("kind", kind.kind());
        node.put("version", kind.version());
        return node;
    }

    private ObjectNode field(Field field, Optional<String> description) {
        ObjectNode node;
        if (description.isEmpty()) {
            node = schema(field.schema());
        } else if (field.schema() instanceof Schema.Reference reference) {
            node = NODES.objectNode();
            if (version3) {
                // OpenAPI 3.0 ignores the siblings of a $ref; upstream wraps the reference to keep the description
                node.putArray("allOf").add(reference(reference.definition()));
            } else {
                node.put("$ref", referencePrefix + reference.definition());
            }
            node.put("description", description.get());
        } else {
            node = NODES.objectNode();
            node.put("description", description.get());
            node.setAll(schema(field.schema()));
        }
        FieldMetadata metadata = field.metadata();
        metadata.listType().ifPresent(listType -> node.put("x-kubernetes-list-type", listType));
        if (!metadata.listMapKeys().isEmpty()) {
            ArrayNode keys = node.putArray("x-kubernetes-list-map-keys");
            metadata.listMapKeys().forEach(keys::add);
        }
        metadata.mapType().ifPresent(mapType -> node.put("x-kubernetes-map-type", mapType));
        metadata.patchMergeKey().ifPresent(key -> node.put("x-kubernetes-patch-merge-key", key));
        if (!metadata.patchStrategies().isEmpty()) {
            node.put("x-kubernetes-patch-strategy", metadata.patchStrategy());
        }
        return node;
    }

    ObjectNode schema(Schema schema) {
        return switch (schema) {
            case Schema.Reference reference -> reference(reference.definition());
            case Schema.ArrayOf array -> {
                ObjectNode node = NODES.objectNode();
                node.set("items", schema(array.items()));
                node.put("type", "array");
                yield node;
            }
            case Schema.MapOf map -> {
                ObjectNode node = NODES.objectNode();
                node.set("additionalProperties", schema(map.values()));
                node.put("type", "object");
                yield node;
            }
            case Schema.Scalar scalar -> {
                ObjectNode node = NODES.objectNode();
                if (!scalar.type().openApiFormat().isEmpty()) {
                    node.put("format", scalar.type().openApiFormat());
                }
                node.put("type", scalar.type().openApiType());
                yield node;
            }
            case Schema.Untyped untyped -> {
                ObjectNode node = NODES.objectNode();
                node.put("type", "object");
                node.put("x-kubernetes-preserve-unknown-fields", true);
                yield node;
            }
        };
    }
}
