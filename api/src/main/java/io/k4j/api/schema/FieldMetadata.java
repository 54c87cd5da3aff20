package io.k4j.api.schema;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Optional;

/**
 * The merge and list semantics upstream declares on a field in {@code types.go}, published in OpenAPI as
 * {@code x-kubernetes-patch-strategy}, {@code x-kubernetes-patch-merge-key}, {@code x-kubernetes-list-type},
 * {@code x-kubernetes-list-map-keys} and {@code x-kubernetes-map-type}. Strategic merge patch reads the patch
 * strategy and merge key; server-side apply reads the list and map types. Immutable.
 *
 * @param patchStrategies e.g. {@code [merge]}, {@code [retainKeys]} or {@code [merge, retainKeys]}
 * @param patchMergeKey the field identifying list entries in a strategic merge, e.g. {@code name}
 * @param listType {@code atomic}, {@code set} or {@code map}
 * @param listMapKeys the keys of a {@code map} list, e.g. {@code [containerPort, protocol]}
 * @param mapType {@code atomic} or {@code granular}
 */
public record FieldMetadata(
        List<String> patchStrategies,
        Optional<String> patchMergeKey,
        Optional<String> listType,
        List<String> listMapKeys,
        Optional<String> mapType) {
    public static final FieldMetadata NONE = new FieldMetadata(List.of(), Optional.empty(), Optional.empty(), List.of(), Optional.empty());

    public FieldMetadata {
        patchStrategies = List.copyOf(requireNonNull(patchStrategies, "patchStrategies is null"));
        requireNonNull(patchMergeKey, "patchMergeKey is null");
        requireNonNull(listType, "listType is null");
        listMapKeys = List.copyOf(requireNonNull(listMapKeys, "listMapKeys is null"));
        requireNonNull(mapType, "mapType is null");
    }

    public boolean hasPatchStrategy(String strategy) {
        return patchStrategies.contains(strategy);
    }

    /** The value of {@code x-kubernetes-patch-strategy}: the strategies joined by commas, empty when none. */
    public String patchStrategy() {
        return String.join(",", patchStrategies);
    }

    public boolean isEmpty() {
        return equals(NONE);
    }
}
