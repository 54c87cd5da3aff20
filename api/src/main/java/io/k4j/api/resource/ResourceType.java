package io.k4j.api.resource;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Set;

/**
 * Everything the API machinery needs to know about one served resource: its names, scope, verbs and
 * subresources, as published in discovery.
 *
 * @param gvk group, version and kind of the objects
 * @param plural the resource name in URLs ({@code pods})
 * @param singular the singular name ({@code pod})
 * @param shortNames short names for kubectl ({@code po})
 * @param categories discovery categories ({@code all})
 * @param namespaced whether objects live in a namespace
 * @param verbs the verbs discovery lists ({@code create}, {@code delete}, {@code deletecollection},
 *     {@code get}, {@code list}, {@code patch}, {@code update}, {@code watch})
 * @param subresources the served subresources ({@code status}, {@code scale}, {@code binding}, …)
 * @param modelClass the fabric8 model class for this kind, used for schema and typed access
 */
public record ResourceType(
        GroupVersionKind gvk,
        String plural,
        String singular,
        List<String> shortNames,
        List<String> categories,
        boolean namespaced,
        Set<String> verbs,
        Set<String> subresources,
        Class<?> modelClass) {
    public ResourceType {
        requireNonNull(gvk, "gvk is null");
        requireNonNull(plural, "plural is null");
        requireNonNull(singular, "singular is null");
        shortNames = List.copyOf(requireNonNull(shortNames, "shortNames is null"));
        categories = List.copyOf(requireNonNull(categories, "categories is null"));
        verbs = Set.copyOf(requireNonNull(verbs, "verbs is null"));
        subresources = Set.copyOf(requireNonNull(subresources, "subresources is null"));
        requireNonNull(modelClass, "modelClass is null");
    }

    public GroupVersionResource gvr() {
        return new GroupVersionResource(gvk.group(), gvk.version(), plural);
    }

    public String kind() {
        return gvk.kind();
    }

    public String listKind() {
        return gvk.kind() + "List";
    }
}
