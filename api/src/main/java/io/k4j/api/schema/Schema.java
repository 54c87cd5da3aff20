package io.k4j.api.schema;

import static java.util.Objects.requireNonNull;

/**
 * The shape of one JSON value in an API object: a reference to a named {@link Definition}, an array, a map
 * ({@code additionalProperties}), a scalar, or anything (preserved as given). Immutable.
 */
public sealed interface Schema {
    /** A named definition, e.g. {@code io.k8s.api.core.v1.PodSpec}; resolve it with {@link Schemas#definition(String)}. */
    record Reference(String definition) implements Schema {
        public Reference {
            requireNonNull(definition, "definition is null");
        }
    }

    /** A JSON array whose items all have one schema. */
    record ArrayOf(Schema items) implements Schema {
        public ArrayOf {
            requireNonNull(items, "items is null");
        }
    }

    /** A JSON object with arbitrary keys whose values all have one schema (Go's {@code map[string]T}). */
    record MapOf(Schema values) implements Schema {
        public MapOf {
            requireNonNull(values, "values is null");
        }
    }

    /** A string, number or boolean. */
    record Scalar(ScalarType type) implements Schema {
        public Scalar {
            requireNonNull(type, "type is null");
        }
    }

    /** Any JSON value, kept as given; upstream marks such fields {@code x-kubernetes-preserve-unknown-fields}. */
    record Untyped() implements Schema {}
}
