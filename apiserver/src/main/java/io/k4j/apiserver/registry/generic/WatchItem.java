package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

import java.util.Objects;
import java.util.function.Function;

/** What a {@link WatchCache.Watcher} delivers, in order. */
public sealed interface WatchItem {
    enum EventType { ADDED, MODIFIED, DELETED }

    /**
     * A change of one object (for DELETED: its last state, with the resourceVersion of the delete). The watchers of one
     * change share the instance, and with it the plain-JSON line the serving side encodes once for all of them.
     */
    final class Event implements WatchItem {
        private final EventType type;
        private final CachedObject object;
        private volatile byte[] jsonLine;

        public Event(EventType type, CachedObject object) {
            this.type = requireNonNull(type, "type is null");
            this.object = requireNonNull(object, "object is null");
        }

        public EventType type() {
            return type;
        }

        public CachedObject object() {
            return object;
        }

        /**
         * The event's plain-JSON watch line, made by {@code encode} when no watcher sharing this event asked before
         * (two may make it at once; either result is the same). Not modified afterwards.
         */
        public byte[] jsonLine(Function<Event, byte[]> encode) {
            byte[] line = jsonLine;
            if (line == null) {
                line = encode.apply(this);
                jsonLine = line;
            }
            return line;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Event event && type == event.type && object.equals(event.object);
        }

        @Override
        public int hashCode() {
            return Objects.hash(type, object);
        }

        @Override
        public String toString() {
            return "Event[type=" + type + ", object=" + object + "]";
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
