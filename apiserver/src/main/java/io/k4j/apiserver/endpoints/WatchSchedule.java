package io.k4j.apiserver.endpoints;

import io.k4j.apiserver.registry.generic.WatchCache;
import java.time.Duration;

/**
 * A watch's deadline and bookmark times, for the thread that serves it, whether that thread waits for each item or
 * only for the watch's end. Not thread-safe.
 */
final class WatchSchedule {
    private final long deadlineNanos;
    private final Duration bookmarkInterval;
    private long nextBookmarkNanos;

    /** @param bookmarkInterval how often to ask for a bookmark, or null for none */
    WatchSchedule(long deadlineNanos, Duration bookmarkInterval) {
        this.deadlineNanos = deadlineNanos;
        this.bookmarkInterval = bookmarkInterval;
        this.nextBookmarkNanos = bookmarkInterval == null ? 0 : System.nanoTime() + bookmarkInterval.toNanos();
    }

    /**
     * Asks {@code watcher} for a bookmark when one is due, and answers how long to wait before asking again: until the
     * deadline or the next bookmark; 0 once the deadline passed.
     */
    long nextWaitNanos(WatchCache.Watcher watcher) {
        long now = System.nanoTime();
        if (now - deadlineNanos >= 0) {
            return 0;
        }
        if (bookmarkInterval == null) {
            return deadlineNanos - now;
        }
        if (now - nextBookmarkNanos >= 0) {
            watcher.requestBookmark();
            nextBookmarkNanos = now + bookmarkInterval.toNanos();
        }
        return Math.min(deadlineNanos - now, Math.max(nextBookmarkNanos - now, 1));
    }
}
