package io.k4j.storage.sqlite;

import io.k4j.storage.KeyValue;
import io.k4j.storage.Lease;
import io.k4j.storage.StorageException;
import io.k4j.storage.WatchEvent;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The only writer of the database. Callers queue requests; the writer thread takes everything queued,
 * applies it in one SQLite transaction and commits. Each request still gets its own revision and its own
 * outcome: a create that finds its key taken fails alone, without touching the batch.
 *
 * <p>Durability is a second stage. The connection runs with {@code synchronous=NORMAL}, so a commit only
 * writes the WAL; the sync thread then fsyncs the WAL once for every transaction committed since its last
 * fsync, and only then publishes the new revision and events to readers and watches and completes the
 * callers' futures. The writer meanwhile applies the next batch, so fsync latency and SQL work overlap,
 * and nothing is acknowledged or visible before it is durable. While a sync is under way the writer keeps
 * its transaction open and goes on applying what arrives, and commits once the sync thread is free: what it
 * commits earlier would wait for that sync's end anyway, and one commit of many writes costs less than many
 * commits of few (each writes its changed pages to the WAL). Checkpoints run on their own thread
 * ({@link WalCheckpointer}).
 *
 * <p>Conflicts are decided against an in-memory index of the latest row of every key, which only this
 * thread touches; the unique index on {@code (name, prev_revision)} backs it up in the database. If a
 * transaction fails as a whole (an I/O error), every request of the batch fails with
 * {@link StorageException.Unavailable} and the index is rebuilt from the database.
 *
 * <p>Thread-safe: {@link #submit} may be called from any thread.
 */
final class GroupCommitWriter implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(GroupCommitWriter.class);

    private final Connection connection;
    private final Statement control;
    private final PreparedStatement begin;
    private final PreparedStatement commit;
    private final PreparedStatement insertRow;
    private final PreparedStatement selectValue;
    private final PreparedStatement insertLease;
    private final PreparedStatement deleteLease;
    private final PreparedStatement upsertMeta;
    private final PreparedStatement deleteSuperseded;
    private final PreparedStatement deleteTombstones;
    private final InstantSource clock;
    private final int maxBatchSize;
    private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private final LinkedBlockingQueue<CommittedBatch> committed = new LinkedBlockingQueue<>();
    private final Thread syncer;
    private final Path walFile;
    private final WalCheckpointer checkpointer;
    private final AtomicLong transactions = new AtomicLong();
    private final AtomicLong syncs = new AtomicLong();
    /**
     * Whether a committed transaction waits for its sync or a sync is under way: set by the writer as it hands a
     * transaction over, cleared by the sync thread once nothing is left to sync.
     */
    private volatile boolean syncBusy;
    /** Whether the writer, its transaction open, waits for the sync thread to be free; it then gets a {@link WriteRequest.SyncFree}. */
    private volatile boolean writerAwaitsSync;
    /** Set once the store cannot go on (a failed fsync, an unreadable database); every later write fails. */
    private volatile StorageException broken;
    /** The open WAL file; sync thread only. */
    private FileChannel walChannel;

    /** Live keys by name; writer thread only. */
    private final Map<String, KeyState> live = new HashMap<>();
    /** The delete row of each deleted key still in the log, which a re-create must point at; writer thread only. */
    private final Map<String, Long> tombstones = new HashMap<>();
    /** Granted leases; the map is read by other threads (keep-alive, reaper). */
    private final ConcurrentHashMap<Long, LeaseEntry> leases = new ConcurrentHashMap<>();

    /** The revision of the last applied write, committed or not; writer thread only. */
    private long revision;
    /** The compacted revision, committed or not; writer thread only. */
    private long compacted;
    private volatile long publishedRevision;
    private volatile long publishedCompactedRevision;
    private WatchHub hub;
    private boolean closed;

    GroupCommitWriter(Path databaseFile, InstantSource clock, int maxBatchSize) throws SQLException {
        this.clock = clock;
        this.maxBatchSize = maxBatchSize;
        this.walFile = databaseFile.resolveSibling(databaseFile.getFileName() + "-wal");
        this.connection = LogTable.open(databaseFile, LogTable.Role.WRITER);
        try {
            this.control = connection.createStatement();
            this.begin = connection.prepareStatement("BEGIN IMMEDIATE");
            this.commit = connection.prepareStatement("COMMIT");
            this.insertRow = connection.prepareStatement(LogTable.INSERT_ROW);
            this.selectValue = connection.prepareStatement(LogTable.SELECT_VALUE);
            this.insertLease = connection.prepareStatement(LogTable.INSERT_LEASE);
            this.deleteLease = connection.prepareStatement(LogTable.DELETE_LEASE);
            this.upsertMeta = connection.prepareStatement(LogTable.UPSERT_META);
            this.deleteSuperseded = connection.prepareStatement(LogTable.DELETE_SUPERSEDED);
            this.deleteTombstones = connection.prepareStatement(LogTable.DELETE_TOMBSTONES);
            load();
            this.checkpointer = new WalCheckpointer(databaseFile, Duration.ofMillis(200));
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
        this.publishedRevision = revision;
        this.publishedCompactedRevision = compacted;
        this.thread = Thread.ofPlatform().name("k4j-sqlite-writer").daemon().unstarted(this::run);
        this.syncer = Thread.ofPlatform().name("k4j-sqlite-sync").daemon().unstarted(this::syncLoop);
    }

    /** Starts applying requests; events of committed batches go to {@code watchHub}. */
    void start(WatchHub watchHub) {
        this.hub = watchHub;
        thread.start();
        syncer.start();
    }

    long currentRevision() {
        return publishedRevision;
    }

    long compactedRevision() {
        return publishedCompactedRevision;
    }

    /** How many transactions were committed; group commit makes it smaller than the number of writes. */
    long committedTransactions() {
        return transactions.get();
    }

    /** How many times the WAL was fsynced; each fsync makes one or more transactions durable. */
    long walSyncs() {
        return syncs.get();
    }

    /** The granted leases; callers may renew them but must not add or remove entries. */
    Map<Long, LeaseEntry> leases() {
        return leases;
    }

    CompletableFuture<Object> submit(WriteRequest request) {
        Pending pending = new Pending(request, new CompletableFuture<>());
        synchronized (this) {
            if (closed) {
                pending.future.completeExceptionally(new StorageException.Unavailable("store is closed", null));
                return pending.future;
            }
            queue.add(pending);
        }
        return pending.future;
    }

    /** Applies everything queued so far, then stops the writer thread and closes the connection. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            queue.add(new Pending(new WriteRequest.Stop(), new CompletableFuture<>()));
        }
        boolean interrupted = joinUninterruptibly(thread);
        interrupted |= joinUninterruptibly(syncer);
        checkpointer.close();
        try {
            if (walChannel != null) {
                walChannel.close();
            }
            connection.close();
        } catch (IOException | SQLException e) {
            log.warn("closing the sqlite writer connection failed", e);
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean joinUninterruptibly(Thread thread) {
        boolean interrupted = false;
        while (true) {
            try {
                thread.join();
                return interrupted;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
    }

    private void run() {
        while (true) {
            Pending first;
            try {
                first = queue.take();
            } catch (InterruptedException e) {
                continue;
            }
            if (first.request instanceof WriteRequest.Stop) {
                committed.add(CommittedBatch.STOP);
                return;
            }
            if (first.request instanceof WriteRequest.SyncFree) {
                continue;
            }
            List<Pending> batch = new ArrayList<>();
            batch.add(first);
            boolean stop;
            try {
                stop = applyBatch(batch);
            } catch (RuntimeException | Error e) {
                // Never leave a caller waiting forever, whatever went wrong.
                log.error("sqlite writer failed", e);
                for (Pending pending : batch) {
                    pending.future.completeExceptionally(new StorageException.Unavailable("sqlite writer failed: " + e, e));
                }
                stop = false;
            }
            if (stop) {
                committed.add(CommittedBatch.STOP);
                return;
            }
        }
    }

    /**
     * Applies {@code batch} and whatever else is queued in one transaction, and commits it once the queue is
     * empty and the sync thread is free. The writer never idles while a sync is under way: it applies what
     * arrives meanwhile into the open transaction (fewer, bigger transactions that left the writer idle
     * during each fsync measured slower than committing at once).
     *
     * @return whether a stop request was taken
     */
    private boolean applyBatch(List<Pending> batch) {
        StorageException failure = broken;
        if (failure != null) {
            queue.drainTo(batch);
            batch.removeIf(pending -> pending.request instanceof WriteRequest.SyncFree);
            boolean stop = batch.removeIf(pending -> pending.request instanceof WriteRequest.Stop);
            for (Pending pending : batch) {
                pending.future.completeExceptionally(failure);
            }
            return stop;
        }
        List<WatchEvent> events = new ArrayList<>();
        List<Object> outcomes = new ArrayList<>();
        boolean stop = false;
        try {
            begin.execute();
            outcomes.add(applyOne(batch.getFirst(), events));
            while (batch.size() < maxBatchSize) {
                Pending next = queue.poll();
                if (next == null) {
                    next = awaitWhileSyncBusy();
                    if (next == null) {
                        break;
                    }
                }
                if (next.request instanceof WriteRequest.SyncFree) {
                    continue;
                }
                if (next.request instanceof WriteRequest.Stop) {
                    stop = true;
                    break;
                }
                batch.add(next);
                outcomes.add(applyOne(next, events));
            }
            commit.execute();
            transactions.incrementAndGet();
            syncBusy = true;
        } catch (SQLException | RuntimeException e) {
            failBatch(batch, e);
            return stop;
        }
        committed.add(new CommittedBatch(revision, compacted, events, List.copyOf(batch), outcomes.toArray()));
        return stop;
    }

    /**
     * With nothing queued: null once the sync thread is free (commit now), else the next thing queued, which
     * is a {@link WriteRequest.SyncFree} when the sync thread became free first.
     */
    private Pending awaitWhileSyncBusy() {
        if (!syncBusy) {
            return null;
        }
        // Announce the wait, then look again: the sync thread clears syncBusy before it reads this flag, so
        // either this sees it free or it sees the wait and sends SyncFree.
        writerAwaitsSync = true;
        try {
            if (!syncBusy) {
                return null;
            }
            return queue.take();
        } catch (InterruptedException e) {
            return null;
        } finally {
            writerAwaitsSync = false;
        }
    }

    private Object applyOne(Pending pending, List<WatchEvent> events) throws SQLException {
        try {
            return apply(pending.request, events);
        } catch (StorageException rejected) {
            return rejected;
        }
    }

    /** The sync thread: makes committed transactions durable, then publishes and acknowledges them in order. */
    private void syncLoop() {
        List<CommittedBatch> group = new ArrayList<>();
        while (true) {
            try {
                group.add(committed.take());
            } catch (InterruptedException e) {
                continue;
            }
            committed.drainTo(group);
            boolean stop = group.getLast() == CommittedBatch.STOP;
            if (stop) {
                group.removeLast();
            }
            if (!group.isEmpty()) {
                try {
                    sync(group);
                } catch (RuntimeException | Error e) {
                    log.error("sqlite sync failed", e);
                    failGroup(group, new StorageException.Unavailable("sqlite sync failed: " + e, e));
                }
            }
            group.clear();
            if (stop) {
                return;
            }
            if (committed.isEmpty()) {
                syncBusy = false;
                if (writerAwaitsSync) {
                    queue.add(new Pending(new WriteRequest.SyncFree(), new CompletableFuture<>()));
                }
            }
        }
    }

    private void sync(List<CommittedBatch> group) {
        StorageException failure = broken;
        if (failure != null) {
            failGroup(group, failure);
            return;
        }
        try {
            if (walChannel == null) {
                // SQLite keeps this file (the same inode) while any connection is open: it deletes the WAL
                // only when the last connection closes, and nothing here truncates it, so the channel
                // opened once stays valid for the store's life.
                walChannel = FileChannel.open(walFile, StandardOpenOption.READ);
                syncDirectory();
            }
            walChannel.force(false);
            syncs.incrementAndGet();
        } catch (NoSuchFileException e) {
            // Nothing was ever written in WAL mode, so there is nothing to make durable.
            log.debug("no WAL file yet at {}", walFile);
        } catch (IOException e) {
            // After a failed fsync the kernel may have dropped the dirty pages: nothing since the last good
            // fsync can be trusted, so the store stops rather than acknowledge writes that may be lost.
            log.error("fsync of {} failed; the store rejects all further writes", walFile, e);
            StorageException unavailable = new StorageException.Unavailable("fsync of " + walFile + " failed: " + e.getMessage(), e);
            broken = unavailable;
            failGroup(group, unavailable);
            return;
        }
        for (CommittedBatch batch : group) {
            hub.publish(batch.revision(), batch.events(), () -> {
                publishedRevision = batch.revision();
                publishedCompactedRevision = batch.compactedRevision();
            });
            for (int i = 0; i < batch.pending().size(); i++) {
                Object outcome = batch.outcomes()[i];
                if (outcome instanceof StorageException rejected) {
                    batch.pending().get(i).future.completeExceptionally(rejected);
                } else {
                    batch.pending().get(i).future.complete(outcome);
                }
            }
        }
        checkpointer.request();
    }

    /** The WAL's directory entry must be durable too, or a crash could lose the whole file. */
    private void syncDirectory() {
        Path directory = walFile.toAbsolutePath().getParent();
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException e) {
            log.debug("cannot fsync directory {}; relying on the file system", directory, e);
        }
    }

    private static void failGroup(List<CommittedBatch> group, StorageException failure) {
        for (CommittedBatch batch : group) {
            for (Pending pending : batch.pending()) {
                pending.future.completeExceptionally(failure);
            }
        }
    }

    private void failBatch(List<Pending> batch, Exception cause) {
        log.error("sqlite transaction of {} writes failed; rebuilding the index from the database", batch.size(), cause);
        try {
            control.execute("ROLLBACK");
        } catch (SQLException ignored) {
            // SQLite may have rolled back by itself already.
        }
        StorageException failure = new StorageException.Unavailable("sqlite write failed: " + cause.getMessage(), cause);
        for (Pending pending : batch) {
            pending.future.completeExceptionally(failure);
        }
        try {
            load();
        } catch (SQLException | RuntimeException reloadFailure) {
            log.error("cannot rebuild the index; the store rejects all further writes", reloadFailure);
            broken = new StorageException.Unavailable("sqlite store failed: " + reloadFailure.getMessage(), reloadFailure);
        }
    }

    private Object apply(WriteRequest request, List<WatchEvent> events) throws SQLException {
        return switch (request) {
            case WriteRequest.Create create -> create(create, events);
            case WriteRequest.Update update -> update(update, events);
            case WriteRequest.Delete delete -> delete(delete, events);
            case WriteRequest.Compact compact -> compact(compact.revision());
            case WriteRequest.GrantLease grant -> grantLease(grant.ttlMillis());
            case WriteRequest.RevokeLease revoke -> revokeLease(revoke, events);
            case WriteRequest.Stop stop -> throw new IllegalStateException("stop is handled by the writer loop");
            case WriteRequest.SyncFree free -> throw new IllegalStateException("SyncFree is handled by the writer loop");
        };
    }

    private KeyValue create(WriteRequest.Create create, List<WatchEvent> events) throws SQLException {
        String key = create.key();
        if (live.containsKey(key)) {
            throw new StorageException.KeyExists(key);
        }
        requireLease(create.lease());
        long next = revision + 1;
        long previousRow = tombstones.getOrDefault(key, 0L);
        insertRow(next, key, true, false, next, previousRow, 1, create.lease(), create.value());
        revision = next;
        tombstones.remove(key);
        live.put(key, new KeyState(next, next, 1, create.lease()));
        attach(key, create.lease());
        KeyValue current = new KeyValue(key, create.value(), next, next, 1, create.lease());
        events.add(new WatchEvent.Put(current, null));
        return current;
    }

    private KeyValue update(WriteRequest.Update update, List<WatchEvent> events) throws SQLException {
        String key = update.key();
        KeyState state = live.get(key);
        if (state == null) {
            throw new StorageException.KeyNotFound(key);
        }
        if (state.modRevision() != update.expectedModRevision()) {
            throw new StorageException.Conflict(state.toKeyValue(key, selectValue(state.modRevision())));
        }
        requireLease(update.lease());
        KeyValue previous = state.toKeyValue(key, selectValue(state.modRevision()));
        long next = revision + 1;
        long version = state.version() + 1;
        insertRow(next, key, false, false, state.createRevision(), state.modRevision(), version, update.lease(), update.value());
        revision = next;
        live.put(key, new KeyState(state.createRevision(), next, version, update.lease()));
        if (state.lease() != update.lease()) {
            detach(key, state.lease());
            attach(key, update.lease());
        }
        KeyValue current = new KeyValue(key, update.value(), state.createRevision(), next, version, update.lease());
        events.add(new WatchEvent.Put(current, previous));
        return current;
    }

    private KeyValue delete(WriteRequest.Delete delete, List<WatchEvent> events) throws SQLException {
        String key = delete.key();
        KeyState state = live.get(key);
        if (state == null) {
            throw new StorageException.KeyNotFound(key);
        }
        if (delete.expectedModRevision() != 0 && state.modRevision() != delete.expectedModRevision()) {
            throw new StorageException.Conflict(state.toKeyValue(key, selectValue(state.modRevision())));
        }
        return deleteKey(key, state, events);
    }

    private KeyValue deleteKey(String key, KeyState state, List<WatchEvent> events) throws SQLException {
        KeyValue previous = state.toKeyValue(key, selectValue(state.modRevision()));
        long next = revision + 1;
        // The delete row repeats the deleted state, so a delete event needs no other row.
        insertRow(next, key, false, true, state.createRevision(), state.modRevision(), state.version(), state.lease(), previous.value());
        revision = next;
        live.remove(key);
        tombstones.put(key, next);
        detach(key, state.lease());
        events.add(new WatchEvent.Delete(previous, next));
        return previous;
    }

    /**
     * Compacts at {@code target}: reads and watches from {@code target} on keep working, so the rows kept
     * are those visible at {@code target - 1}. That keeps the predecessor of every event from {@code target}
     * on, which a watch needs for the previous value.
     */
    private Long compact(long target) throws SQLException {
        if (target <= compacted) {
            throw new StorageException.Compacted(target, compacted);
        }
        if (target > revision) {
            throw new StorageException.FutureRevision(target, revision);
        }
        long bound = target - 1;
        long previousBound = Math.max(compacted - 1, 0);
        deleteSuperseded.setLong(1, previousBound);
        deleteSuperseded.setLong(2, bound);
        int superseded = deleteSuperseded.executeUpdate();
        deleteTombstones.setLong(1, previousBound);
        deleteTombstones.setLong(2, bound);
        int deletes = deleteTombstones.executeUpdate();
        upsertMeta.setString(1, LogTable.META_COMPACT_REVISION);
        upsertMeta.setLong(2, target);
        upsertMeta.executeUpdate();
        tombstones.values().removeIf(row -> row < bound);
        compacted = target;
        log.debug("compacted at revision {}: removed {} superseded rows and {} delete rows", target, superseded, deletes);
        return target;
    }

    private Long grantLease(long ttlMillis) throws SQLException {
        long id;
        do {
            // Random positive identifiers, like etcd's, so a lease id is never reused after a restart.
            id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        } while (leases.containsKey(id));
        insertLease.setLong(1, id);
        insertLease.setLong(2, ttlMillis);
        insertLease.executeUpdate();
        leases.put(id, new LeaseEntry(id, ttlMillis, clock.millis()));
        return id;
    }

    private Long revokeLease(WriteRequest.RevokeLease revoke, List<WatchEvent> events) throws SQLException {
        LeaseEntry entry = leases.get(revoke.lease());
        if (entry == null) {
            throw new StorageException.LeaseNotFound(revoke.lease());
        }
        if (revoke.onlyIfExpired() && !entry.expired(clock.millis())) {
            return revoke.lease();
        }
        for (String key : entry.keys.stream().sorted().toList()) {
            deleteKey(key, live.get(key), events);
        }
        deleteLease.setLong(1, revoke.lease());
        deleteLease.executeUpdate();
        leases.remove(revoke.lease());
        return revoke.lease();
    }

    private void requireLease(long lease) {
        if (lease != Lease.NONE && !leases.containsKey(lease)) {
            throw new StorageException.LeaseNotFound(lease);
        }
    }

    private void attach(String key, long lease) {
        if (lease != Lease.NONE) {
            leases.get(lease).keys.add(key);
        }
    }

    private void detach(String key, long lease) {
        if (lease != Lease.NONE) {
            LeaseEntry entry = leases.get(lease);
            if (entry != null) {
                entry.keys.remove(key);
            }
        }
    }

    private void insertRow(long id, String key, boolean created, boolean deleted, long createRevision, long previousRevision,
            long version, long lease, byte[] value) throws SQLException {
        insertRow.setLong(1, id);
        insertRow.setBytes(2, LogTable.nameBytes(key));
        insertRow.setInt(3, created ? 1 : 0);
        insertRow.setInt(4, deleted ? 1 : 0);
        insertRow.setLong(5, createRevision);
        insertRow.setLong(6, previousRevision);
        insertRow.setLong(7, version);
        insertRow.setLong(8, lease);
        insertRow.setBytes(9, value);
        insertRow.executeUpdate();
    }

    private byte[] selectValue(long id) throws SQLException {
        selectValue.setLong(1, id);
        try (ResultSet rows = selectValue.executeQuery()) {
            if (!rows.next()) {
                throw new IllegalStateException("row " + id + " is missing from the log");
            }
            return rows.getBytes(1);
        }
    }

    /** Rebuilds the in-memory state from the database: at open, and after a failed transaction. */
    private void load() throws SQLException {
        live.clear();
        tombstones.clear();
        compacted = LogTable.readMeta(connection, LogTable.META_COMPACT_REVISION);
        try (ResultSet rows = control.executeQuery(LogTable.SELECT_MAX_REVISION)) {
            rows.next();
            revision = Math.max(rows.getLong(1), compacted);
        }
        long now = clock.millis();
        Map<Long, LeaseEntry> loadedLeases = new HashMap<>();
        try (ResultSet rows = control.executeQuery(LogTable.SELECT_LEASES)) {
            while (rows.next()) {
                long id = rows.getLong(1);
                LeaseEntry existing = leases.get(id);
                loadedLeases.put(id, existing != null && existing.ttlMillis == rows.getLong(2)
                        ? existing : new LeaseEntry(id, rows.getLong(2), now));
            }
        }
        for (LeaseEntry entry : loadedLeases.values()) {
            entry.keys.clear();
        }
        try (ResultSet rows = control.executeQuery(LogTable.SELECT_ALL_LATEST)) {
            while (rows.next()) {
                String key = LogTable.name(rows.getBytes(2));
                long id = rows.getLong(1);
                if (rows.getInt(3) == 1) {
                    tombstones.put(key, id);
                    continue;
                }
                long lease = rows.getLong(6);
                live.put(key, new KeyState(rows.getLong(4), id, rows.getLong(5), lease));
                LeaseEntry entry = loadedLeases.get(lease);
                if (entry != null) {
                    entry.keys.add(key);
                }
            }
        }
        leases.keySet().retainAll(loadedLeases.keySet());
        leases.putAll(loadedLeases);
    }

    /** The index entry of a live key: everything but the value, which stays in the database. */
    private record KeyState(long createRevision, long modRevision, long version, long lease) {
        KeyValue toKeyValue(String key, byte[] value) {
            return new KeyValue(key, value, createRevision, modRevision, version, lease);
        }
    }

    private record Pending(WriteRequest request, CompletableFuture<Object> future) {}

    /** A committed transaction waiting for the fsync that makes it durable. */
    private record CommittedBatch(long revision, long compactedRevision, List<WatchEvent> events, List<Pending> pending, Object[] outcomes) {
        static final CommittedBatch STOP = new CommittedBatch(0, 0, List.of(), List.of(), new Object[0]);
    }
}
