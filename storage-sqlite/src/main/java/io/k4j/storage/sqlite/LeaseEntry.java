package io.k4j.storage.sqlite;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A granted lease. The deadline lives only in memory, as in etcd: after a restart every lease gets its full
 * TTL again, so a store that was down does not expire everything the moment it comes back.
 *
 * <p>The deadline and {@link #revoking} are thread-safe; {@link #keys} belongs to the writer thread.
 */
final class LeaseEntry {
    final long id;
    final long ttlMillis;
    /** The keys attached to the lease; touched only by the writer thread. */
    final Set<String> keys = new HashSet<>();
    /** Set while the reaper's revoke request is queued, so it is not queued twice. */
    final AtomicBoolean revoking = new AtomicBoolean();
    private volatile long deadlineMillis;

    LeaseEntry(long id, long ttlMillis, long nowMillis) {
        this.id = id;
        this.ttlMillis = ttlMillis;
        this.deadlineMillis = nowMillis + ttlMillis;
    }

    void renew(long nowMillis) {
        deadlineMillis = nowMillis + ttlMillis;
    }

    boolean expired(long nowMillis) {
        return nowMillis >= deadlineMillis;
    }
}
