package io.k4j.controllerkit.expectations;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Remembers how many creations and deletions a controller has asked for per controller key and not yet seen in its
 * informer cache, so it does not act twice on a stale cache (upstream's {@code ControllerExpectations}).
 * A record older than {@link #EXPECTATIONS_TIMEOUT} counts as satisfied: a watch event that never came must not
 * block the controller forever. Thread-safe.
 */
public class ControllerExpectations {
    /** Upstream's {@code ExpectationsTimeout}. */
    public static final Duration EXPECTATIONS_TIMEOUT = Duration.ofMinutes(5);

    private final InstantSource clock;
    private final ConcurrentMap<String, Expectation> expectations = new ConcurrentHashMap<>();

    public ControllerExpectations(InstantSource clock) {
        this.clock = requireNonNull(clock, "clock is null");
    }

    /**
     * True when the controller may act on {@code key}: no record, all expected events observed, or the record
     * expired.
     */
    public boolean satisfiedExpectations(String key) {
        Expectation expectation = expectations.get(key);
        if (expectation == null) {
            return true;
        }
        return expectation.fulfilled() || expectation.expired(clock.instant());
    }

    /** Replaces the record of {@code key}: {@code adds} creations and {@code deletes} deletions are now awaited. */
    public void setExpectations(String key, int adds, int deletes) {
        expectations.put(key, new Expectation(adds, deletes, clock.instant()));
    }

    public void expectCreations(String key, int adds) {
        setExpectations(key, adds, 0);
    }

    public void expectDeletions(String key, int deletes) {
        setExpectations(key, 0, deletes);
    }

    /** Raises the awaited counts of an existing record (no-op without one). */
    public void raiseExpectations(String key, int adds, int deletes) {
        Expectation expectation = expectations.get(key);
        if (expectation != null) {
            expectation.add(adds, deletes);
        }
    }

    /** Lowers the awaited counts: an event arrived, or an asked-for action failed and will never produce one. */
    public void lowerExpectations(String key, int adds, int deletes) {
        Expectation expectation = expectations.get(key);
        if (expectation != null) {
            expectation.add(-adds, -deletes);
        }
    }

    public void creationObserved(String key) {
        lowerExpectations(key, 1, 0);
    }

    public void deletionObserved(String key) {
        lowerExpectations(key, 0, 1);
    }

    /** Forgets {@code key} (its controller object is gone). */
    public void deleteExpectations(String key) {
        expectations.remove(key);
    }

    /** The outstanding (creations, deletions) of {@code key}, for logs and tests; empty record reads as (0, 0). */
    public int[] pending(String key) {
        Expectation expectation = expectations.get(key);
        return expectation == null ? new int[] {0, 0} : new int[] {expectation.adds(), expectation.deletes()};
    }

    private static final class Expectation {
        private int adds;
        private int deletes;
        private final Instant timestamp;

        Expectation(int adds, int deletes, Instant timestamp) {
            this.adds = adds;
            this.deletes = deletes;
            this.timestamp = timestamp;
        }

        synchronized void add(int moreAdds, int moreDeletes) {
            adds += moreAdds;
            deletes += moreDeletes;
        }

        synchronized boolean fulfilled() {
            return adds <= 0 && deletes <= 0;
        }

        synchronized int adds() {
            return adds;
        }

        synchronized int deletes() {
            return deletes;
        }

        boolean expired(Instant now) {
            return Duration.between(timestamp, now).compareTo(EXPECTATIONS_TIMEOUT) > 0;
        }
    }
}
