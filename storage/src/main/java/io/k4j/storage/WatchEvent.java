package io.k4j.storage;

import static java.util.Objects.requireNonNull;

/**
 * A change to one key, as delivered by a {@link KeyValueStore#watch watch}. Events of one watch arrive in
 * revision order.
 */
public sealed interface WatchEvent {
    /** The revision of the change. */
    long revision();

    /** The key that changed. */
    String key();

    /**
     * A key was created or updated.
     *
     * @param current the new state
     * @param previous the state before the write, or {@code null} when the key was created
     */
    record Put(KeyValue current, KeyValue previous) implements WatchEvent {
        public Put {
            requireNonNull(current, "current is null");
        }

        @Override
        public long revision() {
            return current.modRevision();
        }

        @Override
        public String key() {
            return current.key();
        }

        public boolean isCreate() {
            return previous == null;
        }
    }

    /**
     * A key was deleted (explicitly, or because its lease expired).
     *
     * @param previous the last state before the delete
     * @param revision the revision of the delete
     */
    record Delete(KeyValue previous, long revision) implements WatchEvent {
        public Delete {
            requireNonNull(previous, "previous is null");
        }

        @Override
        public String key() {
            return previous.key();
        }
    }
}
