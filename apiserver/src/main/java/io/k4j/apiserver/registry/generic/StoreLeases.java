package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

import io.k4j.storage.KeyValueStore;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/**
 * Storage leases for the objects of one store with a time to live, shared between writes as upstream's etcd3
 * lease manager shares them: a lease is granted for the time to live plus a short reuse window (5% of it, at most a
 * minute) and then attached to every write in that window, up to {@value #MAX_KEYS_PER_LEASE} keys, so a burst of
 * events costs one lease rather than one each. An object thus lives at least its time to live and at most the reuse
 * window longer. Thread-safe.
 */
final class StoreLeases {
    static final int MAX_KEYS_PER_LEASE = 1000;
    private static final Duration MAX_REUSE = Duration.ofMinutes(1);

    private final KeyValueStore storage;
    private final InstantSource clock;
    private long lease;
    private Instant expiry = Instant.MIN;
    private int keys;

    StoreLeases(KeyValueStore storage, InstantSource clock) {
        this.storage = requireNonNull(storage, "storage is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** A lease that outlives {@code timeToLive} from now by at most the reuse window. */
    synchronized long leaseFor(Duration timeToLive) {
        Duration reuse = reuseWindow(timeToLive);
        Instant now = clock.instant();
        Instant earliest = now.plus(timeToLive);
        boolean outlivesTheObject = earliest.isBefore(expiry);
        boolean notTooLong = earliest.plus(reuse).isAfter(expiry);
        if (outlivesTheObject && notTooLong && keys < MAX_KEYS_PER_LEASE) {
            keys++;
            return lease;
        }
        Duration granted = timeToLive.plus(reuse);
        lease = storage.grantLease(granted);
        expiry = now.plus(granted);
        keys = 1;
        return lease;
    }

    static Duration reuseWindow(Duration timeToLive) {
        Duration fivePercent = timeToLive.dividedBy(20);
        return fivePercent.compareTo(MAX_REUSE) < 0 ? fivePercent : MAX_REUSE;
    }
}
