package io.k4j.storage.sqlite;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.time.InstantSource;

/**
 * Tuning of a {@link SqliteKeyValueStore}. Immutable.
 *
 * @param clock the time source for lease expiry and history retention
 * @param maxBatchSize the most writes committed together in one transaction (group commit)
 * @param readConnections how many SQLite connections serve reads in parallel
 * @param maxValueBytes the largest value accepted; the default matches etcd's request limit (1.5 MiB) so
 *     both backends reject the same objects
 * @param leaseCheckInterval how often expired leases are looked for
 * @param compactionInterval how often history is compacted automatically; {@link Duration#ZERO} disables it
 * @param retainedHistory automatic compaction keeps at least this much history by time ...
 * @param retainedRevisions ... and at least this many revisions
 * @param watchQueueLimit how many undelivered events a watch may buffer before it falls back to catching up
 *     from the log table, so that a slow listener costs disk reads rather than unbounded memory
 */
public record SqliteOptions(
        InstantSource clock,
        int maxBatchSize,
        int readConnections,
        int maxValueBytes,
        Duration leaseCheckInterval,
        Duration compactionInterval,
        Duration retainedHistory,
        long retainedRevisions,
        int watchQueueLimit) {
    public SqliteOptions {
        requireNonNull(clock, "clock is null");
        requireNonNull(leaseCheckInterval, "leaseCheckInterval is null");
        requireNonNull(compactionInterval, "compactionInterval is null");
        requireNonNull(retainedHistory, "retainedHistory is null");
        requirePositive("maxBatchSize", maxBatchSize);
        requirePositive("readConnections", readConnections);
        requirePositive("maxValueBytes", maxValueBytes);
        requirePositive("watchQueueLimit", watchQueueLimit);
        if (leaseCheckInterval.isNegative() || leaseCheckInterval.isZero()) {
            throw new IllegalArgumentException("leaseCheckInterval must be positive: " + leaseCheckInterval);
        }
        if (compactionInterval.isNegative()) {
            throw new IllegalArgumentException("compactionInterval is negative: " + compactionInterval);
        }
        if (retainedHistory.isNegative()) {
            throw new IllegalArgumentException("retainedHistory is negative: " + retainedHistory);
        }
        if (retainedRevisions < 0) {
            throw new IllegalArgumentException("retainedRevisions is negative: " + retainedRevisions);
        }
    }

    /** Keeps 5 minutes and 10,000 revisions of history, compacting every minute. */
    public static SqliteOptions defaults() {
        return new SqliteOptions(
                InstantSource.system(),
                1024,
                4,
                1536 * 1024,
                Duration.ofMillis(250),
                Duration.ofMinutes(1),
                Duration.ofMinutes(5),
                10_000,
                10_000);
    }

    public SqliteOptions withClock(InstantSource newClock) {
        return new SqliteOptions(newClock, maxBatchSize, readConnections, maxValueBytes, leaseCheckInterval,
                compactionInterval, retainedHistory, retainedRevisions, watchQueueLimit);
    }

    public SqliteOptions withMaxBatchSize(int newMaxBatchSize) {
        return new SqliteOptions(clock, newMaxBatchSize, readConnections, maxValueBytes, leaseCheckInterval,
                compactionInterval, retainedHistory, retainedRevisions, watchQueueLimit);
    }

    public SqliteOptions withAutomaticCompaction(Duration newInterval, Duration newRetainedHistory, long newRetainedRevisions) {
        return new SqliteOptions(clock, maxBatchSize, readConnections, maxValueBytes, leaseCheckInterval,
                newInterval, newRetainedHistory, newRetainedRevisions, watchQueueLimit);
    }

    public SqliteOptions withoutAutomaticCompaction() {
        return withAutomaticCompaction(Duration.ZERO, retainedHistory, retainedRevisions);
    }

    public SqliteOptions withWatchQueueLimit(int newWatchQueueLimit) {
        return new SqliteOptions(clock, maxBatchSize, readConnections, maxValueBytes, leaseCheckInterval,
                compactionInterval, retainedHistory, retainedRevisions, newWatchQueueLimit);
    }

    private static void requirePositive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive: " + value);
        }
    }
}
