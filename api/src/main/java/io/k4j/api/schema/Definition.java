package io.k4j.api.schema;

import static java.util.Objects.requireNonNull;

import io.k4j.api.resource.GroupVersionKind;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A named type of the API, named as upstream's OpenAPI names it ({@code io.k8s.api.core.v1.Pod},
 * {@code io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta}). Immutable.
 *
 * @param name the upstream definition name
 * @param kind whether it is an object or one of the scalar apimachinery types
 * @param fields the fields of an object by JSON name, sorted by name; empty for the scalar kinds
 * @param groupVersionKinds the kinds this definition is the top-level type of
 *     ({@code x-kubernetes-group-version-kind}); empty for nested types
 */
public record Definition(String name, DefinitionKind kind, Map<String, Field> fields, List<GroupVersionKind> groupVersionKinds) {
    public Definition {
        requireNonNull(name, "name is null");
        requireNonNull(kind, "kind is null");
        fields = Collections.unmodifiableMap(new TreeMap<>(requireNonNull(fields, "fields is null")));
        groupVersionKinds = List.copyOf(requireNonNull(groupVersionKinds, "groupVersionKinds is null"));
    }

    public Optional<Field> field(String fieldName) {
        return Optional.ofNullable(fields.get(fieldName));
    }

    /** The same definition published as the top-level type of more kinds. */
    public Definition withGroupVersionKinds(List<GroupVersionKind> kinds) {
        return new Definition(name, kind, fields, kinds);
    }
}
