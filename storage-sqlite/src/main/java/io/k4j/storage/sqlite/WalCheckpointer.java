package io.k4j.storage.sqlite;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies the WAL into the database file on its own thread and connection, so that the writer never
 * pays for a checkpoint (page copies plus two fsyncs) while callers wait. PASSIVE checkpoints never block
 * the writer or readers; once the whole WAL is copied, SQLite's next write restarts it from the beginning,
 * which keeps the file small.
 *
 * <p>Thread-safe.
 */
final class WalCheckpointer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(WalCheckpointer.class);

    private final Connection connection;
    private final Duration minimumInterval;
    private final Semaphore requests = new Semaphore(0);
    private final Thread thread;
    private volatile boolean closed;

    WalCheckpointer(Path databaseFile, Duration minimumInterval) throws SQLException {
        this.connection = LogTable.open(databaseFile, LogTable.Role.CHECKPOINTER);
        this.minimumInterval = minimumInterval;
        this.thread = Thread.ofPlatform().name("k4j-sqlite-checkpointer").daemon().start(this::run);
    }

    /** Asks for a checkpoint soon; requests made while one runs are folded into the next. */
    void request() {
        if (requests.availablePermits() == 0) {
            requests.release();
        }
    }

    private void run() {
        try {
            while (!closed) {
                requests.acquire();
                requests.drainPermits();
                checkpoint();
                // Rate limit: under a steady write load one checkpoint per interval copies the WAL in big runs.
                Thread.sleep(minimumInterval.toMillis());
            }
        } catch (InterruptedException e) {
            // Closed.
        }
    }

    private void checkpoint() {
        try (Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("PRAGMA wal_checkpoint(PASSIVE)")) {
            if (result.next()) {
                log.trace("checkpoint: wal has {} frames, {} copied", result.getLong(2), result.getLong(3));
            }
        } catch (SQLException e) {
            if (!closed) {
                log.warn("wal checkpoint failed; retrying at the next request", e);
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            connection.close();
        } catch (SQLException e) {
            log.warn("closing the checkpoint connection failed", e);
        }
    }
}
