package io.k4j.api.apply;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.k4j.api.resource.GroupVersionKind;
import io.k4j.api.schema.Definition;
import io.k4j.api.schema.Field;
import io.k4j.api.schema.FieldMetadata;
import io.k4j.api.schema.Schema;
import io.k4j.api.schema.Schemas;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Resolves the {@link Shape}s server-side apply works with from the API schemas, as upstream converts its OpenAPI
 * into structured-merge-diff schemas: {@code x-kubernetes-list-type} and {@code x-kubernetes-list-map-keys} decide
 * a list's relationship, and without them a list with {@code patchStrategy=merge} is associative on its merge key
 * (or a set without one) while every other list is atomic; maps and structs are granular unless declared atomic.
 *
 * <p>Thread-safe; shapes are resolved lazily and cached.
 */
public final class Shapes {
    private static final String META = "io.k8s.apimachinery.pkg.apis.meta.v1.";
    private static final String CORE = "io.k8s.api.core.v1.";

    /** The types upstream declares {@code +structType=atomic}, which the schemas' field metadata cannot express. */
    private static final Set<String> ATOMIC_STRUCTS = Set.of(
            META + "LabelSelector",
            CORE + "LocalObjectReference",
            CORE + "ObjectReference",
            CORE + "TypedLocalObjectReference",
            CORE + "TypedObjectReference",
            CORE + "SecretReference",
            CORE + "SecretKeySelector",
            CORE + "ConfigMapKeySelector",
            CORE + "ObjectFieldSelector",
            CORE + "ResourceFieldSelector",
            CORE + "NodeSelector",
            CORE + "FileKeySelector");

    /** Upstream's schema defaults of key fields, which entries that omit them are identified with. */
    private static final Map<String, JsonNode> KEY_DEFAULTS = Map.of("protocol", TextNode.valueOf("TCP"));

    private static final class Holder {
        static final Shapes BUILTIN = new Shapes(Schemas.builtin());
    }

    private final Schemas schemas;
    private final ConcurrentMap<String, Shape.Struct> structs = new ConcurrentHashMap<>();
    /** Every write of a tracked kind asks for its shape. */
    private final ConcurrentMap<GroupVersionKind, Optional<Shape>> kinds = new ConcurrentHashMap<>();

    public Shapes(Schemas schemas) {
        this.schemas = requireNonNull(schemas, "schemas is null");
    }

    /** The shapes of the built-in kinds. */
    public static Shapes builtin() {
        return Holder.BUILTIN;
    }

    /** The shape of a kind's objects; empty for a kind without a schema. */
    public Optional<Shape> forKind(GroupVersionKind kind) {
        Optional<Shape> shape = kinds.get(kind);
        if (shape == null) {
            shape = kinds.computeIfAbsent(kind, key -> schemas.forKind(key).map(definition -> struct(definition, false)));
        }
        return shape;
    }

    private Shape.Struct struct(Definition definition, boolean atomic) {
        String name = definition.name();
        boolean atomicStruct = atomic || ATOMIC_STRUCTS.contains(name);
        return structs.computeIfAbsent(atomicStruct ? name + "#atomic" : name, key -> {
            // Each struct resolves its fields once; walks ask for them for every field of every object.
            ConcurrentMap<String, Optional<Shape>> fields = new ConcurrentHashMap<>();
            return new Shape.Struct(name, atomicStruct, fieldName -> {
                Optional<Shape> resolved = fields.get(fieldName);
                if (resolved == null) {
                    resolved = definition.field(fieldName).map(this::of);
                    fields.putIfAbsent(fieldName, resolved);
                }
                return resolved;
            });
        });
    }

    private Shape of(Field field) {
        return of(field.schema(), field.metadata());
    }

    Shape of(Schema schema, FieldMetadata metadata) {
        return switch (schema) {
            case Schema.Reference reference -> {
                Definition definition = schemas.definition(reference.definition());
                yield switch (definition.kind()) {
                    case OBJECT -> struct(definition, metadata.mapType().filter("atomic"::equals).isPresent());
                    case QUANTITY, INT_OR_STRING, TIME, MICRO_TIME, FIELDS_V1 -> new Shape.Scalar();
                    case RAW_EXTENSION -> new Shape.Deduced();
                };
            }
            case Schema.ArrayOf array -> list(of(array.items(), FieldMetadata.NONE), metadata);
            case Schema.MapOf map -> new Shape.MapOf(of(map.values(), FieldMetadata.NONE), metadata.mapType().filter("atomic"::equals).isPresent());
            case Schema.Scalar scalar -> new Shape.Scalar();
            case Schema.Untyped untyped -> new Shape.Deduced();
        };
    }

    private static Shape list(Shape items, FieldMetadata metadata) {
        String listType = metadata.listType().orElse("");
        Shape.ListType type;
        List<String> keys = List.of();
        List<String> mapKeys = !metadata.listMapKeys().isEmpty() ? metadata.listMapKeys() : metadata.patchMergeKey().map(List::of).orElse(List.of());
        if ((listType.equals("map") || listType.isEmpty() && metadata.hasPatchStrategy("merge")) && !mapKeys.isEmpty()) {
            type = Shape.ListType.MAP;
            keys = mapKeys;
        } else if (listType.equals("set") || listType.isEmpty() && metadata.hasPatchStrategy("merge")) {
            type = Shape.ListType.SET;
        } else {
            type = Shape.ListType.ATOMIC;
        }
        if (type == Shape.ListType.SET && !(items instanceof Shape.Scalar)) {
            type = Shape.ListType.ATOMIC;
        }
        if (type == Shape.ListType.MAP && !(items instanceof Shape.Struct)) {
            type = Shape.ListType.ATOMIC;
        }
        Map<String, JsonNode> defaults = new java.util.HashMap<>();
        for (String key : keys) {
            JsonNode value = KEY_DEFAULTS.get(key);
            if (value != null) {
                defaults.put(key, value);
            }
        }
        return new Shape.ListOf(items, type, keys, defaults);
    }
}
