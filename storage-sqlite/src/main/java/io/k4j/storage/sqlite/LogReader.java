package io.k4j.storage.sqlite;

import io.k4j.storage.KeyValue;
import io.k4j.storage.RangeRequest;
import io.k4j.storage.RangeResult;
import io.k4j.storage.StorageException;
import io.k4j.storage.WatchEvent;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Serves reads from a small pool of read-only connections. In WAL mode readers never block the writer nor
 * each other, and each read runs in one SQLite transaction, so it sees one consistent snapshot of the log.
 *
 * <p>Thread-safe.
 */
final class LogReader implements AutoCloseable {
    /** Keeps only the newest row of each key at or below a revision. */
    private static final String LATEST_AT_REVISION = "k.id = (SELECT MAX(m.id) FROM kine m WHERE m.name = k.name AND m.id <= ?)";

    private final Path databaseFile;
    private final int maxConnections;
    private final BlockingQueue<Session> idle;
    private final AtomicInteger opened = new AtomicInteger();
    private volatile boolean closed;

    LogReader(Path databaseFile, int maxConnections) {
        this.databaseFile = databaseFile;
        this.maxConnections = maxConnections;
        this.idle = new ArrayBlockingQueue<>(maxConnections);
    }

    /** The current state of {@code key} as of {@code revision}, or {@code null}. */
    KeyValue get(String key, long revision) {
        return read(session -> {
            PreparedStatement statement = session.prepare(LogTable.SELECT_LATEST);
            statement.setBytes(1, LogTable.nameBytes(key));
            statement.setLong(2, revision);
            try (ResultSet rows = statement.executeQuery()) {
                if (!rows.next() || rows.getInt(2) == 1) {
                    return null;
                }
                return new KeyValue(key, rows.getBytes(6), rows.getLong(3), rows.getLong(1), rows.getLong(4), rows.getLong(5));
            }
        });
    }

    /** Reads a range at {@code revision}, which the caller resolved and checked against the current revision. */
    RangeResult range(RangeRequest request, long revision) {
        return read(session -> session.inTransaction(() -> {
            checkNotCompacted(session, revision);
            KeyRange keys = KeyRange.of(request.prefix(), request.startKey());
            long count = count(session, keys, revision);
            StringBuilder sql = new StringBuilder("SELECT k.id, k.name, k.create_revision, k.version, k.lease, k.value FROM kine k WHERE ");
            keys.appendCondition(sql, "k.name");
            sql.append(" AND k.id <= ? AND k.deleted = 0 AND ").append(LATEST_AT_REVISION).append(" ORDER BY k.name LIMIT ?");
            PreparedStatement statement = session.prepare(sql.toString());
            int parameter = keys.bind(statement, 1);
            statement.setLong(parameter++, revision);
            statement.setLong(parameter++, revision);
            statement.setLong(parameter, request.limit() == 0 ? -1 : request.limit());
            List<KeyValue> items = new ArrayList<>();
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    items.add(new KeyValue(LogTable.name(rows.getBytes(2)), rows.getBytes(6), rows.getLong(3), rows.getLong(1),
                            rows.getLong(4), rows.getLong(5)));
                }
            }
            return new RangeResult(items, count > items.size(), count, revision);
        }));
    }

    long count(String prefix, long revision) {
        return read(session -> count(session, KeyRange.of(prefix, ""), revision));
    }

    /**
     * The events with revisions in {@code [fromRevision, toRevision]} under {@code prefix}, at most
     * {@code limit} of them, in revision order.
     *
     * @throws StorageException.Compacted when {@code fromRevision} is no longer retained
     */
    List<WatchEvent> history(String prefix, long fromRevision, long toRevision, int limit) {
        return read(session -> session.inTransaction(() -> {
            checkNotCompacted(session, fromRevision);
            KeyRange keys = KeyRange.of(prefix, "");
            StringBuilder sql = new StringBuilder("""
                    SELECT k.id, k.name, k.created, k.deleted, k.create_revision, k.prev_revision, k.version, k.lease, k.value,
                           p.id, p.create_revision, p.version, p.lease, p.value
                    FROM kine k LEFT JOIN kine p ON k.created = 0 AND k.deleted = 0 AND p.id = k.prev_revision
                    WHERE k.id >= ? AND k.id <= ? AND\s""");
            // "+k.name" keeps SQLite from choosing the name index: history is read in revision order.
            keys.appendCondition(sql, "+k.name");
            sql.append(" ORDER BY k.id LIMIT ?");
            PreparedStatement statement = session.prepare(sql.toString());
            statement.setLong(1, fromRevision);
            statement.setLong(2, toRevision);
            int parameter = keys.bind(statement, 3);
            statement.setLong(parameter, limit);
            List<WatchEvent> events = new ArrayList<>();
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    events.add(toEvent(rows));
                }
            }
            return events;
        }));
    }

    private static WatchEvent toEvent(ResultSet rows) throws SQLException {
        long revision = rows.getLong(1);
        String key = LogTable.name(rows.getBytes(2));
        boolean created = rows.getInt(3) == 1;
        boolean deleted = rows.getInt(4) == 1;
        long createRevision = rows.getLong(5);
        long previousRevision = rows.getLong(6);
        long version = rows.getLong(7);
        long lease = rows.getLong(8);
        byte[] value = rows.getBytes(9);
        if (deleted) {
            return new WatchEvent.Delete(new KeyValue(key, value, createRevision, previousRevision, version, lease), revision);
        }
        KeyValue current = new KeyValue(key, value, createRevision, revision, version, lease);
        if (created) {
            return new WatchEvent.Put(current, null);
        }
        rows.getLong(10);
        if (rows.wasNull()) {
            // Compaction keeps the predecessor of every retained row, so this is a corrupt log.
            throw new IllegalStateException("row " + revision + " of " + key + " lost its predecessor " + previousRevision);
        }
        KeyValue previous = new KeyValue(key, rows.getBytes(14), rows.getLong(11), previousRevision, rows.getLong(12), rows.getLong(13));
        return new WatchEvent.Put(current, previous);
    }

    private static long count(Session session, KeyRange keys, long revision) throws SQLException {
        StringBuilder sql = new StringBuilder("SELECT COUNT(*) FROM kine k WHERE ");
        keys.appendCondition(sql, "k.name");
        sql.append(" AND k.id <= ? AND k.deleted = 0 AND ").append(LATEST_AT_REVISION);
        PreparedStatement statement = session.prepare(sql.toString());
        int parameter = keys.bind(statement, 1);
        statement.setLong(parameter++, revision);
        statement.setLong(parameter, revision);
        try (ResultSet rows = statement.executeQuery()) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /** Checks against the compacted revision recorded in this read's snapshot, which no compaction can race. */
    private static void checkNotCompacted(Session session, long revision) throws SQLException {
        PreparedStatement statement = session.prepare(LogTable.SELECT_META);
        statement.setString(1, LogTable.META_COMPACT_REVISION);
        long compacted;
        try (ResultSet rows = statement.executeQuery()) {
            compacted = rows.next() ? rows.getLong(1) : 0;
        }
        if (revision < compacted) {
            throw new StorageException.Compacted(revision, compacted);
        }
    }

    private <T> T read(SessionFunction<T> function) {
        Session session = borrow();
        boolean healthy = false;
        try {
            T result = function.apply(session);
            healthy = true;
            return result;
        } catch (SQLException e) {
            throw new StorageException.Unavailable("sqlite read failed: " + e.getMessage(), e);
        } finally {
            release(session, healthy);
        }
    }

    private Session borrow() {
        if (closed) {
            throw new StorageException.Unavailable("store is closed", null);
        }
        Session session = idle.poll();
        if (session != null) {
            return session;
        }
        if (opened.incrementAndGet() <= maxConnections) {
            try {
                return new Session(LogTable.open(databaseFile, LogTable.Role.READER));
            } catch (SQLException e) {
                opened.decrementAndGet();
                throw new StorageException.Unavailable("cannot open " + databaseFile + ": " + e.getMessage(), e);
            }
        }
        opened.decrementAndGet();
        try {
            return idle.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageException.Unavailable("interrupted while waiting for a read connection", e);
        }
    }

    private void release(Session session, boolean healthy) {
        if (!healthy) {
            session.rollbackQuietly();
        }
        if (closed || !idle.offer(session)) {
            opened.decrementAndGet();
            session.close();
        }
    }

    @Override
    public void close() {
        closed = true;
        Session session;
        while ((session = idle.poll()) != null) {
            opened.decrementAndGet();
            session.close();
        }
    }

    @FunctionalInterface
    private interface SessionFunction<T> {
        T apply(Session session) throws SQLException;
    }

    @FunctionalInterface
    private interface SqlSupplier<T> {
        T get() throws SQLException;
    }

    /** One read connection with its prepared statements; used by one thread at a time. */
    private static final class Session {
        private final Connection connection;
        private final Map<String, PreparedStatement> statements = new HashMap<>();
        private boolean inTransaction;

        Session(Connection connection) {
            this.connection = connection;
        }

        PreparedStatement prepare(String sql) throws SQLException {
            PreparedStatement statement = statements.get(sql);
            if (statement == null) {
                statement = connection.prepareStatement(sql);
                statements.put(sql, statement);
            }
            return statement;
        }

        <T> T inTransaction(SqlSupplier<T> body) throws SQLException {
            try (Statement statement = connection.createStatement()) {
                statement.execute("BEGIN");
            }
            inTransaction = true;
            T result = body.get();
            inTransaction = false;
            try (Statement statement = connection.createStatement()) {
                statement.execute("COMMIT");
            }
            return result;
        }

        void rollbackQuietly() {
            if (inTransaction) {
                inTransaction = false;
                try (Statement statement = connection.createStatement()) {
                    statement.execute("ROLLBACK");
                } catch (SQLException ignored) {
                    // The session is closed or the transaction is gone already; nothing is left to undo.
                }
            }
        }

        void close() {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // Closing a read-only connection loses nothing.
            }
        }
    }

    /** Names from {@code from} (inclusive) up to the end of the prefix. */
    private record KeyRange(byte[] from, byte[] end) {
        static KeyRange of(String prefix, String startKey) {
            byte[] prefixBytes = LogTable.nameBytes(prefix);
            byte[] from = startKey.isEmpty() ? prefixBytes : LogTable.nameBytes(startKey);
            return new KeyRange(from, LogTable.prefixEnd(prefixBytes));
        }

        void appendCondition(StringBuilder sql, String column) {
            sql.append(column).append(" >= ?");
            if (end != null) {
                sql.append(" AND ").append(column).append(" < ?");
            }
        }

        int bind(PreparedStatement statement, int firstParameter) throws SQLException {
            int parameter = firstParameter;
            statement.setBytes(parameter++, from);
            if (end != null) {
                statement.setBytes(parameter++, end);
            }
            return parameter;
        }
    }
}
