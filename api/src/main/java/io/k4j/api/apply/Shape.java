package io.k4j.api.apply;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * How server-side apply sees one position of an object, as structured-merge-diff's schema atoms: a scalar, a
 * struct with declared fields, a map, a list with its element relationship, or a deduced value of any shape. A
 * struct, map or list that is atomic is owned and replaced as a whole. Immutable.
 */
public sealed interface Shape {
    /** A string, number, boolean, or a scalar apimachinery type (Quantity, IntOrString, Time). */
    record Scalar() implements Shape {}

    /**
     * An object with declared fields.
     *
     * @param definition the upstream definition name, e.g. {@code io.k8s.api.core.v1.PodSpec}
     * @param atomic whether it is owned as a whole ({@code +structType=atomic})
     * @param fields resolves a declared field's shape; empty for a field the schema does not declare
     */
    record Struct(String definition, boolean atomic, Function<String, Optional<Shape>> fields) implements Shape {
        public Struct {
            requireNonNull(definition, "definition is null");
            requireNonNull(fields, "fields is null");
        }

        public Optional<Shape> field(String name) {
            return fields.apply(name);
        }
    }

    /** An object with arbitrary keys ({@code map[string]T}). */
    record MapOf(Shape values, boolean atomic) implements Shape {
        public MapOf {
            requireNonNull(values, "values is null");
        }
    }

    /**
     * A list.
     *
     * @param keys the key fields of an associative list ({@link ListType#MAP}), else empty
     * @param keyDefaults the values key fields take when an entry omits them (upstream's schema defaults, e.g.
     *     {@code protocol: TCP})
     */
    record ListOf(Shape items, ListType type, List<String> keys, Map<String, JsonNode> keyDefaults) implements Shape {
        public ListOf {
            requireNonNull(items, "items is null");
            requireNonNull(type, "type is null");
            keys = List.copyOf(requireNonNull(keys, "keys is null"));
            keyDefaults = Map.copyOf(requireNonNull(keyDefaults, "keyDefaults is null"));
        }
    }

    /** A value of any shape (an embedded object): objects merge field by field, lists are atomic. */
    record Deduced() implements Shape {}

    /** A list's element relationship ({@code x-kubernetes-list-type}). */
    enum ListType {
        /** Owned and replaced as a whole. */
        ATOMIC,
        /** Scalar entries identified by their value. */
        SET,
        /** Object entries identified by their key fields. */
        MAP
    }
}
