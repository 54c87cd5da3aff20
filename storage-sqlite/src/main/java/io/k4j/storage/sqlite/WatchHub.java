package io.k4j.storage.sqlite;

import io.k4j.storage.StorageException;
import io.k4j.storage.WatchEvent;
import io.k4j.storage.WatchListener;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Hands committed events to the running watches. The writer publishes each committed batch here, and the
 * published revision only moves under the hub's lock, so a watch that registers or finishes catching up
 * under that lock knows exactly which revisions the live stream will bring: none is missed and none
 * arrives twice.
 *
 * <p>Thread-safe.
 */
final class WatchHub {
    private final ReentrantLock lock = new ReentrantLock();
    private final List<SqliteWatch> watches = new ArrayList<>();
    private final LogReader reader;
    private final int queueLimit;
    private long publishedRevision;
    private boolean closed;

    WatchHub(LogReader reader, long publishedRevision, int queueLimit) {
        this.reader = reader;
        this.publishedRevision = publishedRevision;
        this.queueLimit = queueLimit;
    }

    /** Makes {@code revision} the current revision and delivers the events that led to it. */
    void publish(long revision, List<WatchEvent> events, Runnable publishState) {
        lock.lock();
        try {
            publishState.run();
            publishedRevision = revision;
            if (!events.isEmpty()) {
                for (SqliteWatch watch : watches) {
                    watch.offer(events);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Asks each watch to report progress at the published revision once it has delivered what led to it. */
    void requestProgress() {
        lock.lock();
        try {
            for (SqliteWatch watch : watches) {
                watch.requestProgress(publishedRevision);
            }
        } finally {
            lock.unlock();
        }
    }

    SqliteWatch register(String prefix, long startRevision, WatchListener listener) {
        lock.lock();
        try {
            if (closed) {
                throw new StorageException.Unavailable("store is closed", null);
            }
            long first = startRevision == 0 ? publishedRevision + 1 : startRevision;
            SqliteWatch watch = new SqliteWatch(this, reader, prefix, first, first <= publishedRevision, listener, queueLimit);
            watches.add(watch);
            watch.start();
            return watch;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Called by a watch that has replayed history up to {@code replayedRevision}: when nothing newer was
     * published meanwhile it switches to live delivery and returns {@code true}.
     */
    boolean goLive(SqliteWatch watch, long replayedRevision) {
        lock.lock();
        try {
            if (replayedRevision < publishedRevision) {
                return false;
            }
            watch.markLive();
            return true;
        } finally {
            lock.unlock();
        }
    }

    long publishedRevision() {
        lock.lock();
        try {
            return publishedRevision;
        } finally {
            lock.unlock();
        }
    }

    void remove(SqliteWatch watch) {
        lock.lock();
        try {
            watches.remove(watch);
        } finally {
            lock.unlock();
        }
    }

    /** Ends every watch with {@code error}; later registrations fail. */
    void close(StorageException error) {
        List<SqliteWatch> open;
        lock.lock();
        try {
            closed = true;
            open = List.copyOf(watches);
            watches.clear();
        } finally {
            lock.unlock();
        }
        for (SqliteWatch watch : open) {
            watch.fail(error);
        }
    }
}
