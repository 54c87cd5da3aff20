package io.k4j.api.schema;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.k4j.api.resource.GroupVersionKind;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Finds the fields of a decoded object that its kind's schema does not know, for {@code fieldValidation=Strict}
 * (reject) and {@code Warn} (warn). Paths are in upstream's format: field names joined by dots, array indexes
 * in brackets, no leading dot ({@code spec.containers[0].foo}), in document order.
 *
 * <p>Stateless and thread-safe.
 */
public final class UnknownFields {
    private final Schemas schemas;

    public UnknownFields(Schemas schemas) {
        this.schemas = requireNonNull(schemas, "schemas is null");
    }

    /** Over {@link Schemas#builtin()}. */
    public static UnknownFields builtin() {
        return new UnknownFields(Schemas.builtin());
    }

    /** The unknown fields of an object of a served kind; none when the kind has no schema. */
    public List<String> find(GroupVersionKind kind, JsonNode object) {
        return schemas.forKind(kind).map(definition -> find(definition, object)).orElse(List.of());
    }

    /** The unknown fields of a value of the given definition. */
    public List<String> find(Definition definition, JsonNode object) {
        List<String> unknown = new ArrayList<>();
        walkDefinition(definition, object, FieldPath.ROOT, unknown);
        return List.copyOf(unknown);
    }

    /** Upstream's message for one unknown field: {@code unknown field "spec.foo"}. */
    public static String message(String path) {
        return "unknown field \"" + path + "\"";
    }

    /** Upstream's 400 message for {@code fieldValidation=Strict}: {@code strict decoding error: unknown field "a", unknown field "b"}. */
    public static String strictDecodingMessage(List<String> paths) {
        StringBuilder builder = new StringBuilder("strict decoding error: ");
        for (int i = 0; i < paths.size(); i++) {
            builder.append(i == 0 ? "" : ", ").append(message(paths.get(i)));
        }
        return builder.toString();
    }

    private void walk(Schema schema, JsonNode value, FieldPath path, List<String> unknown) {
        switch (schema) {
            case Schema.Reference reference -> walkDefinition(schemas.definition(reference.definition()), value, path, unknown);
            case Schema.ArrayOf array -> {
                if (value.isArray()) {
                    for (int i = 0; i < value.size(); i++) {
                        walk(array.items(), value.get(i), new FieldPath(path, null, i), unknown);
                    }
                }
            }
            case Schema.MapOf map -> {
                if (value.isObject()) {
                    for (Iterator<Map.Entry<String, JsonNode>> entries = value.fields(); entries.hasNext(); ) {
                        Map.Entry<String, JsonNode> entry = entries.next();
                        walk(map.values(), entry.getValue(), new FieldPath(path, entry.getKey(), -1), unknown);
                    }
                }
            }
            case Schema.Scalar scalar -> { }
            case Schema.Untyped untyped -> { }
        }
    }

    private void walkDefinition(Definition definition, JsonNode value, FieldPath path, List<String> unknown) {
        switch (definition.kind()) {
            case OBJECT -> {
                // a type mismatch (a string where an object belongs) is a decoding error, reported elsewhere
                if (!value.isObject()) {
                    return;
                }
                for (Iterator<Map.Entry<String, JsonNode>> entries = value.fields(); entries.hasNext(); ) {
                    Map.Entry<String, JsonNode> entry = entries.next();
                    FieldPath fieldPath = new FieldPath(path, entry.getKey(), -1);
                    Field field = definition.fields().get(entry.getKey());
                    if (field == null) {
                        unknown.add(fieldPath.toString());
                    } else if (!entry.getValue().isNull()) {
                        walk(field.schema(), entry.getValue(), fieldPath, unknown);
                    }
                }
            }
            case QUANTITY, INT_OR_STRING, TIME, MICRO_TIME, RAW_EXTENSION, FIELDS_V1 -> { }
        }
    }

    /**
     * A field's path as links to its parent, written out only for an unknown field: almost every field is known, and
     * building each one's path string cost more than the walk itself.
     *
     * @param parent null for the root
     * @param name the field name, or null for an array element
     * @param index the array index of an element
     */
    private record FieldPath(FieldPath parent, String name, int index) {
        static final FieldPath ROOT = new FieldPath(null, null, -1);

        @Override
        public String toString() {
            StringBuilder builder = new StringBuilder();
            appendTo(builder);
            return builder.toString();
        }

        private void appendTo(StringBuilder builder) {
            if (parent == null) {
                return;
            }
            parent.appendTo(builder);
            if (name == null) {
                builder.append('[').append(index).append(']');
            } else {
                if (!builder.isEmpty()) {
                    builder.append('.');
                }
                builder.append(name);
            }
        }
    }
}
