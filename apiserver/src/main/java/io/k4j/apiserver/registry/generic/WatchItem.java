package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

/** What a {@link WatchCache.Watcher} delivers, in order. */
public sealed interface WatchItem {
    enum EventType { ADDED, MODIFIED, DELETED }

    /** A change of one object (for DELETED: its last state, with the resourceVersion of the delete). */
    record Event(EventType type, CachedObject object) implements WatchItem {
        public Event {
            requireNonNull(type, "type is null");
            requireNonNull(object, "object is null");
        }
    }

    /**
     * Progress: every event up to {@code revision} was delivered.
     *
     * @param initialEventsEnd whether this bookmark ends the initial events of {@code sendInitialEvents}
     */
    record Bookmark(long revision, boolean initialEventsEnd) implements WatchItem {}

    /** The server ended the watch (it fell behind, or the cache was reset); the client watches again. */
    record Ended() implements WatchItem {}
}
