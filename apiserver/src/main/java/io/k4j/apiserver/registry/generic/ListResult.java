package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * One page of a list.
 *
 * @param revision the list's resourceVersion
 * @param items the matching objects in key order
 * @param continueToken the token for the next page, empty on the last page
 * @param remainingItemCount how many objects follow, when known (no selectors), else null
 */
public record ListResult(long revision, List<CachedObject> items, String continueToken, Long remainingItemCount) {
    public ListResult {
        items = List.copyOf(requireNonNull(items, "items is null"));
        requireNonNull(continueToken, "continueToken is null");
    }
}
