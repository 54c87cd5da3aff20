package io.k4j.storage.sqlite;

import static java.util.Objects.requireNonNull;

import io.k4j.storage.KeyValue;
import io.k4j.storage.KeyValueStore;
import io.k4j.storage.RangeRequest;
import io.k4j.storage.RangeResult;
import io.k4j.storage.StorageException;
import io.k4j.storage.Watch;
import io.k4j.storage.WatchListener;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded storage backend: etcd's semantics on one SQLite file, in the shape of kine's log table (see
 * {@link LogTable}).
 *
 * <p>Writes go through a {@link GroupCommitWriter}: concurrent writes share one transaction and one fsync,
 * and none is acknowledged, or visible to reads and watches, before the WAL holding it is fsynced. Reads
 * run on a small pool of read connections and see the state as of the published revision. Watches are
 * served in-process: each committed batch is handed to the watches directly, and a watch starting in the
 * past first replays the log table. A maintenance thread expires leases and compacts history periodically
 * (see {@link SqliteOptions}).
 *
 * <p>Only one store may have a database file open at a time; a lock file next to it ({@code <file>.lock})
 * enforces that across processes. Thread-safe.
 */
public final class SqliteKeyValueStore implements KeyValueStore {
    private static final Logger log = LoggerFactory.getLogger(SqliteKeyValueStore.class);

    private final SqliteOptions options;
    private final DatabaseLock lock;
    private final GroupCommitWriter writer;
    private final LogReader reader;
    private final WatchHub hub;
    private final ScheduledExecutorService maintenance;
    /** (time, revision) samples that tell automatic compaction which revision was current how long ago. */
    private final Deque<RevisionSample> revisionSamples = new ArrayDeque<>();

    private SqliteKeyValueStore(Path databaseFile, SqliteOptions options, DatabaseLock lock) throws SQLException {
        this.options = options;
        this.lock = lock;
        this.writer = new GroupCommitWriter(databaseFile, options.clock(), options.maxBatchSize());
        this.reader = new LogReader(databaseFile, options.readConnections());
        this.hub = new WatchHub(reader, writer.currentRevision(), options.watchQueueLimit());
        writer.start(hub);
        this.maintenance = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("k4j-sqlite-maintenance").daemon().factory());
        long leaseCheckMillis = options.leaseCheckInterval().toMillis();
        maintenance.scheduleWithFixedDelay(this::expireLeases, leaseCheckMillis, leaseCheckMillis, TimeUnit.MILLISECONDS);
        if (!options.compactionInterval().isZero()) {
            long compactionMillis = options.compactionInterval().toMillis();
            maintenance.scheduleWithFixedDelay(this::compactAutomatically, 0, compactionMillis, TimeUnit.MILLISECONDS);
        }
    }

    /** Opens the database, creating it and its directory if needed, with the default options. */
    public static SqliteKeyValueStore open(Path databaseFile) {
        return open(databaseFile, SqliteOptions.defaults());
    }

    public static SqliteKeyValueStore open(Path databaseFile, SqliteOptions options) {
        requireNonNull(databaseFile, "databaseFile is null");
        requireNonNull(options, "options is null");
        Path directory = databaseFile.toAbsolutePath().getParent();
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new StorageException.Unavailable("cannot create " + directory + ": " + e.getMessage(), e);
        }
        DatabaseLock lock = DatabaseLock.acquire(databaseFile);
        try {
            return new SqliteKeyValueStore(databaseFile, options, lock);
        } catch (SQLException e) {
            lock.close();
            throw new StorageException.Unavailable("cannot open " + databaseFile + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            lock.close();
            throw e;
        }
    }

    @Override
    public long currentRevision() {
        return writer.currentRevision();
    }

    @Override
    public long compactedRevision() {
        return writer.compactedRevision();
    }

    /** How many write transactions were committed; with group commit, fewer than the writes. */
    public long committedTransactions() {
        return writer.committedTransactions();
    }

    /** How many times the WAL was fsynced; one fsync makes every transaction committed before it durable. */
    public long walSyncs() {
        return writer.walSyncs();
    }

    @Override
    public KeyValue get(String key) {
        requireKey(key);
        return reader.get(key, currentRevision());
    }

    @Override
    public RangeResult range(RangeRequest request) {
        requireNonNull(request, "request is null");
        long current = currentRevision();
        long revision = request.revision() == 0 ? current : request.revision();
        if (revision > current) {
            throw new StorageException.FutureRevision(revision, current);
        }
        long compacted = compactedRevision();
        if (revision < compacted) {
            throw new StorageException.Compacted(revision, compacted);
        }
        return reader.range(request, revision);
    }

    @Override
    public long count(String prefix) {
        requireNonNull(prefix, "prefix is null");
        return reader.count(prefix, currentRevision());
    }

    @Override
    public KeyValue create(String key, byte[] value, long lease) {
        requireKey(key);
        return (KeyValue) await(writer.submit(new WriteRequest.Create(key, checkedCopy(key, value), lease)));
    }

    @Override
    public KeyValue update(String key, byte[] value, long expectedModRevision, long lease) {
        requireKey(key);
        return (KeyValue) await(writer.submit(new WriteRequest.Update(key, checkedCopy(key, value), expectedModRevision, lease)));
    }

    @Override
    public KeyValue delete(String key, long expectedModRevision) {
        requireKey(key);
        return (KeyValue) await(writer.submit(new WriteRequest.Delete(key, expectedModRevision)));
    }

    @Override
    public Watch watch(String prefix, long startRevision, WatchListener listener) {
        requireNonNull(prefix, "prefix is null");
        requireNonNull(listener, "listener is null");
        if (startRevision < 0) {
            throw new IllegalArgumentException("startRevision is negative: " + startRevision);
        }
        long compacted = compactedRevision();
        if (startRevision != 0 && startRevision < compacted) {
            throw new StorageException.Compacted(startRevision, compacted);
        }
        return hub.register(prefix, startRevision, listener);
    }

    @Override
    public void requestWatchProgress() {
        hub.requestProgress();
    }

    /**
     * {@inheritDoc}
     *
     * @throws StorageException.Compacted when {@code revision} is not above the compacted revision (as etcd)
     * @throws StorageException.FutureRevision when {@code revision} is above the current revision
     */
    @Override
    public void compact(long revision) {
        await(writer.submit(new WriteRequest.Compact(revision)));
    }

    @Override
    public long grantLease(Duration ttl) {
        requireNonNull(ttl, "ttl is null");
        if (ttl.toMillis() <= 0) {
            throw new IllegalArgumentException("ttl must be positive: " + ttl);
        }
        return (Long) await(writer.submit(new WriteRequest.GrantLease(ttl.toMillis())));
    }

    @Override
    public void keepAlive(long lease) {
        LeaseEntry entry = writer.leases().get(lease);
        long now = options.clock().millis();
        if (entry == null || entry.expired(now)) {
            throw new StorageException.LeaseNotFound(lease);
        }
        entry.renew(now);
    }

    @Override
    public void revokeLease(long lease) {
        await(writer.submit(new WriteRequest.RevokeLease(lease, false)));
    }

    @Override
    public void close() {
        maintenance.shutdownNow();
        hub.close(new StorageException.Unavailable("store is closed", null));
        reader.close();
        // Last, so that the writer's connection is the last to close and SQLite folds the WAL into the file.
        writer.close();
        lock.close();
    }

    private void expireLeases() {
        long now = options.clock().millis();
        for (LeaseEntry entry : writer.leases().values()) {
            if (entry.expired(now) && entry.revoking.compareAndSet(false, true)) {
                writer.submit(new WriteRequest.RevokeLease(entry.id, true))
                        .whenComplete((ignored, failure) -> entry.revoking.set(false));
            }
        }
    }

    /**
     * Compacts to the revision that was current {@code retainedHistory} ago, but never within the last
     * {@code retainedRevisions} revisions, like the apiserver's periodic etcd compaction.
     */
    private void compactAutomatically() {
        try {
            Instant now = options.clock().instant();
            long current = currentRevision();
            revisionSamples.addLast(new RevisionSample(now, current));
            Instant horizon = now.minus(options.retainedHistory());
            long byTime = 0;
            while (!revisionSamples.isEmpty() && !revisionSamples.peekFirst().time().isAfter(horizon)) {
                byTime = revisionSamples.removeFirst().revision();
            }
            if (byTime > 0) {
                // Keep the newest sample at or before the horizon: it answers the same question next time.
                revisionSamples.addFirst(new RevisionSample(horizon, byTime));
            }
            long target = Math.min(byTime, current - options.retainedRevisions());
            if (target > compactedRevision()) {
                compact(target);
            }
        } catch (StorageException e) {
            log.warn("automatic compaction failed", e);
        }
    }

    private byte[] checkedCopy(String key, byte[] value) {
        requireNonNull(value, "value is null");
        if (value.length > options.maxValueBytes()) {
            throw new StorageException.ValueTooLarge(key, value.length, options.maxValueBytes());
        }
        // The caller keeps its array; stored values must never change afterwards.
        return value.clone();
    }

    private static void requireKey(String key) {
        requireNonNull(key, "key is null");
        if (key.isEmpty()) {
            throw new IllegalArgumentException("key is empty");
        }
    }

    private static Object await(CompletableFuture<Object> future) {
        try {
            return future.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof StorageException storageException) {
                throw storageException;
            }
            throw new StorageException.Unavailable("sqlite write failed: " + e.getCause(), e.getCause());
        }
    }

    private record RevisionSample(Instant time, long revision) {}
}
