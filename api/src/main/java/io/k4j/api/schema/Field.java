package io.k4j.api.schema;

import static java.util.Objects.requireNonNull;

/**
 * One field of an object definition. Immutable.
 *
 * @param name the JSON name, e.g. {@code containers}
 * @param schema the shape of its value
 * @param metadata upstream's merge and list semantics for it
 */
public record Field(String name, Schema schema, FieldMetadata metadata) {
    public Field {
        requireNonNull(name, "name is null");
        requireNonNull(schema, "schema is null");
        requireNonNull(metadata, "metadata is null");
    }
}
