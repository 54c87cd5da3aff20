package io.k4j.storage;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * The answer to a {@link RangeRequest}.
 *
 * @param items the keys in key order
 * @param more whether the limit cut the result short
 * @param count how many keys under the prefix exist from {@code startKey} on at that revision (ignores the limit)
 * @param revision the revision the read was served at: the store's current revision, or the requested one
 */
public record RangeResult(List<KeyValue> items, boolean more, long count, long revision) {
    public RangeResult {
        items = List.copyOf(requireNonNull(items, "items is null"));
    }
}
