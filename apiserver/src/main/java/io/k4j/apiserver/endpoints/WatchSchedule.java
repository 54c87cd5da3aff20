package io.k4j.apiserver.endpoints;

import static java.util.Objects.requireNonNull;

import io.k4j.apiserver.registry.generic.WatchCache;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A watch's deadline and bookmark times, for the thread that serves it. A thread that waits only for the watch's end
 * asks {@link #nextWaitNanos} how long to wait. A thread that waits for each item has the shared timer
 * {@linkplain #enqueueOnTime queue} the bookmarks and the end instead, and waits without a timeout: a virtual thread
 * that waits with one has JDK 25's scheduler add a timer entry and cancel it when an item comes first, and each of the
 * two wakes the scheduler's timer thread. With a wait per event on every in-process watch (and one per in-process
 * request in {@code RawApi}), that timer work was about 6 % of the server's CPU samples while the scheduler bound
 * 2,000 pods a second (docs/benchmarks.md, session 32).
 *
 * <p>Not thread-safe, apart from the timer's work, which runs on its own thread.
 */
final class WatchSchedule {
    /** One platform thread for all watches' times; a task is added per watch and per bookmark interval, not per event. */
    private static final ScheduledThreadPoolExecutor TIMER = timer();

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

    /**
     * Has the shared timer queue {@code watcher}'s bookmarks when they are due and its end at the deadline, behind the
     * items already queued, until the returned handle is closed; the serving thread then waits for items alone.
     */
    Timed enqueueOnTime(WatchCache.Watcher watcher) {
        requireNonNull(watcher, "watcher is null");
        long now = System.nanoTime();
        ScheduledFuture<?> end = TIMER.schedule(watcher::end, Math.max(0, deadlineNanos - now), TimeUnit.NANOSECONDS);
        ScheduledFuture<?> bookmarks = bookmarkInterval == null ? null
                : TIMER.scheduleAtFixedRate(watcher::requestBookmark, Math.max(0, nextBookmarkNanos - now), bookmarkInterval.toNanos(), TimeUnit.NANOSECONDS);
        return new Timed(end, bookmarks);
    }

    /** The timer's tasks for one watch; closing cancels them. */
    record Timed(ScheduledFuture<?> end, ScheduledFuture<?> bookmarks) implements AutoCloseable {
        @Override
        public void close() {
            end.cancel(false);
            if (bookmarks != null) {
                bookmarks.cancel(false);
            }
        }
    }

    private static ScheduledThreadPoolExecutor timer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, Thread.ofPlatform().daemon(true).name("watch-schedule").factory());
        // A watch that ends before its deadline takes its tasks out of the queue rather than leaving them for hours.
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }
}
