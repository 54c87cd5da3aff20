package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

import io.k4j.api.selection.FieldSelector;
import io.k4j.api.selection.LabelSelector;

/**
 * The options of a LIST or WATCH, as upstream's {@code metav1.ListOptions}.
 *
 * @param labelSelector objects must match it
 * @param fieldSelector objects must match it
 * @param limit page size, 0 for everything
 * @param continueToken the token of the previous page, or empty
 * @param resourceVersion empty (most recent), {@code "0"} (any) or a revision
 * @param resourceVersionMatch empty, {@code NotOlderThan} or {@code Exact}
 * @param allowWatchBookmarks whether a watch may send BOOKMARK events
 * @param sendInitialEvents for a watch: send the current state first, ended by an annotated bookmark; null when unset
 * @param timeoutSeconds for a watch: end it after this long, 0 for the server's default
 */
public record ListOptions(
        LabelSelector labelSelector,
        FieldSelector fieldSelector,
        long limit,
        String continueToken,
        String resourceVersion,
        String resourceVersionMatch,
        boolean allowWatchBookmarks,
        Boolean sendInitialEvents,
        long timeoutSeconds) {
    public static final String NOT_OLDER_THAN = "NotOlderThan";
    public static final String EXACT = "Exact";
    public static final ListOptions EVERYTHING = new ListOptions(LabelSelector.everything(), FieldSelector.everything(), 0, "", "", "", false, null, 0);

    public ListOptions {
        requireNonNull(labelSelector, "labelSelector is null");
        requireNonNull(fieldSelector, "fieldSelector is null");
        requireNonNull(continueToken, "continueToken is null");
        requireNonNull(resourceVersion, "resourceVersion is null");
        requireNonNull(resourceVersionMatch, "resourceVersionMatch is null");
    }

    public ListOptions withSelectors(LabelSelector labels, FieldSelector fields) {
        return new ListOptions(labels, fields, limit, continueToken, resourceVersion, resourceVersionMatch, allowWatchBookmarks, sendInitialEvents, timeoutSeconds);
    }
}
