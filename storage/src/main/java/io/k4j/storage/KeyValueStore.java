package io.k4j.storage;

import java.time.Duration;

/**
 * A key-value store with etcd's semantics: every write gets the next value of one global int64 revision,
 * old revisions stay readable until compacted, and a watch replays every change from any retained revision.
 *
 * <p>Writes return only once durable: an acknowledged write survives a crash of the process. Every
 * implementation passes the conformance suite {@code io.k4j.storage.testing.KeyValueStoreConformance}.
 *
 * <p>Implementations are thread-safe.
 */
public interface KeyValueStore extends AutoCloseable {
    /** The revision of the latest write (0 for an empty store). */
    long currentRevision();

    /** The revision below which history is gone (0 when never compacted). */
    long compactedRevision();

    /** The current state of one key, or {@code null} when absent. */
    KeyValue get(String key);

    /** Reads a range of keys, optionally at an older revision. */
    RangeResult range(RangeRequest request);

    /** Counts the keys under the prefix at the current revision. */
    long count(String prefix);

    /**
     * Creates a key that must not exist.
     *
     * @param lease a lease from {@link #grantLease} or {@link Lease#NONE}
     * @return the stored key (its mod revision is the new revision)
     * @throws StorageException.KeyExists when the key exists
     */
    KeyValue create(String key, byte[] value, long lease);

    /**
     * Replaces a key whose mod revision is {@code expectedModRevision}.
     *
     * @throws StorageException.KeyNotFound when the key does not exist
     * @throws StorageException.Conflict when the key's mod revision differs; carries the current state
     */
    KeyValue update(String key, byte[] value, long expectedModRevision, long lease);

    /**
     * Deletes a key, guarded by its mod revision.
     *
     * @param expectedModRevision the mod revision the key must have, or 0 to delete unconditionally
     * @return the state just before the delete
     * @throws StorageException.KeyNotFound when the key does not exist
     * @throws StorageException.Conflict when the key's mod revision differs
     */
    KeyValue delete(String key, long expectedModRevision);

    /**
     * Watches every key under the prefix, starting with the changes at {@code startRevision}.
     *
     * @param startRevision the first revision to deliver (inclusive), or 0 for changes after the current revision
     * @throws StorageException.Compacted when {@code startRevision} is below the compacted revision
     *     (implementations may also report it through {@link WatchListener#onError})
     */
    Watch watch(String prefix, long startRevision, WatchListener listener);

    /**
     * Asks every watch for a {@link WatchListener#onProgress} at the current revision, once it has delivered the changes
     * up to it (etcd's {@code RequestProgress}). A watch that is behind may answer later or not at all.
     */
    void requestWatchProgress();

    /**
     * Discards history before {@code revision}: reads and watches below it fail with
     * {@link StorageException.Compacted}. The latest state of every key stays.
     */
    void compact(long revision);

    /** Grants a lease; keys attached to it are deleted (with delete events) once it expires unrenewed. */
    long grantLease(Duration ttl);

    /** Renews a lease for its full TTL. */
    void keepAlive(long lease);

    /** Revokes a lease now, deleting its keys. */
    void revokeLease(long lease);

    @Override
    void close();
}
