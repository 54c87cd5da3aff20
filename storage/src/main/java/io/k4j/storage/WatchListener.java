package io.k4j.storage;

import java.util.List;

/**
 * Receives the events of one watch. Calls for one watch never overlap and arrive in revision order;
 * implementations should return quickly (hand off to a queue) because a slow listener delays its watch.
 */
public interface WatchListener {
    /** A batch of events in revision order; all events of one revision are in the same batch. */
    void onEvents(List<WatchEvent> events);

    /**
     * The watch ended because of an error, for example {@link StorageException.Compacted} when the start
     * revision is no longer retained. No further calls follow.
     */
    void onError(StorageException error);

    /**
     * Every change up to {@code revision} has been delivered, whether or not any was under the prefix: the answer to
     * {@link KeyValueStore#requestWatchProgress}, in order with the events (etcd's progress notification).
     */
    default void onProgress(long revision) {}
}
