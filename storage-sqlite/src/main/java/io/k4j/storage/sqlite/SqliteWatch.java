package io.k4j.storage.sqlite;

import io.k4j.storage.StorageException;
import io.k4j.storage.Watch;
import io.k4j.storage.WatchEvent;
import io.k4j.storage.WatchListener;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One watch, delivered by its own virtual thread so that a slow listener delays nobody else.
 *
 * <p>A watch is either live (the hub queues each committed batch for it) or catching up (it reads the log
 * table from {@link #nextRevision} on while the hub skips it). A watch starting in the past begins by
 * catching up; a live watch whose listener falls more than the queue limit behind drops its queue and
 * catches up too, the way etcd moves slow watchers to its unsynced set. Switching back to live happens
 * under the hub's lock (see {@link WatchHub#goLive}), so no revision is lost or repeated.
 *
 * <p>Thread-safe.
 */
final class SqliteWatch implements Watch {
    private static final Logger log = LoggerFactory.getLogger(SqliteWatch.class);
    private static final int HISTORY_PAGE_SIZE = 1000;
    private static final List<WatchEvent> WAKE_UP = List.of();

    private final WatchHub hub;
    private final LogReader reader;
    private final String prefix;
    private final long firstRevision;
    private final WatchListener listener;
    private final int queueLimit;
    private final LinkedBlockingQueue<List<WatchEvent>> queue = new LinkedBlockingQueue<>();
    private final AtomicInteger queuedEvents = new AtomicInteger();
    private final ReentrantLock deliveryLock = new ReentrantLock();
    private final Thread thread;
    private volatile boolean catchingUp;
    private volatile boolean closed;
    /** Progress was asked for while catching up (or its marker dropped with the queue): reported once live again. */
    private volatile boolean progressWanted;
    /** The next revision this watch delivers; only the watch thread touches it. */
    private long nextRevision;

    SqliteWatch(WatchHub hub, LogReader reader, String prefix, long firstRevision, boolean catchingUp, WatchListener listener, int queueLimit) {
        this.hub = hub;
        this.reader = reader;
        this.prefix = prefix;
        this.firstRevision = firstRevision;
        this.listener = listener;
        this.queueLimit = queueLimit;
        this.catchingUp = catchingUp;
        this.nextRevision = firstRevision;
        this.thread = Thread.ofVirtual().name("k4j-sqlite-watch " + prefix).unstarted(this::run);
    }

    void start() {
        thread.start();
    }

    /** Called by the hub, under its lock, with every committed batch. */
    void offer(List<WatchEvent> events) {
        if (closed || catchingUp) {
            return;
        }
        List<WatchEvent> matching = null;
        for (WatchEvent event : events) {
            if (event.revision() >= firstRevision && event.key().startsWith(prefix)) {
                if (matching == null) {
                    matching = new ArrayList<>();
                }
                matching.add(event);
            }
        }
        if (matching == null) {
            return;
        }
        if (queuedEvents.addAndGet(matching.size()) > queueLimit) {
            catchingUp = true;
            progressWanted = true;
            queue.clear();
            queuedEvents.set(0);
            queue.offer(WAKE_UP);
            return;
        }
        queue.offer(List.copyOf(matching));
    }

    /**
     * Called by the hub, under its lock, with the published revision: a live watch has every batch up to it queued, so
     * a marker behind them reports the progress in order; a watch catching up reports it once live again.
     */
    void requestProgress(long publishedRevision) {
        if (closed) {
            return;
        }
        if (catchingUp) {
            progressWanted = true;
        } else {
            queue.offer(new ProgressMarker(publishedRevision));
        }
    }

    /** Called by the hub, under its lock, when this watch has caught up with the published revision. */
    void markLive() {
        catchingUp = false;
    }

    private void run() {
        try {
            while (!closed) {
                if (catchingUp) {
                    catchUp();
                    if (!catchingUp && progressWanted) {
                        progressWanted = false;
                        deliverProgress(nextRevision - 1);
                    }
                    continue;
                }
                List<WatchEvent> batch = queue.take();
                if (batch instanceof ProgressMarker marker) {
                    deliverProgress(marker.revision);
                } else if (!batch.isEmpty()) {
                    queuedEvents.addAndGet(-batch.size());
                    deliver(batch);
                }
            }
        } catch (InterruptedException e) {
            // Closed while waiting for events.
        } catch (StorageException e) {
            fail(e);
        } catch (RuntimeException e) {
            fail(new StorageException.Unavailable("watch on " + prefix + " failed: " + e.getMessage(), e));
        }
    }

    private void catchUp() {
        long target = hub.publishedRevision();
        while (nextRevision <= target && !closed) {
            List<WatchEvent> page = reader.history(prefix, nextRevision, target, HISTORY_PAGE_SIZE);
            if (!page.isEmpty()) {
                deliver(page);
            }
            if (page.size() < HISTORY_PAGE_SIZE) {
                nextRevision = target + 1;
            }
        }
        hub.goLive(this, target);
    }

    private void deliver(List<WatchEvent> events) {
        deliveryLock.lock();
        try {
            if (closed) {
                return;
            }
            nextRevision = events.getLast().revision() + 1;
            listener.onEvents(events);
        } catch (RuntimeException e) {
            log.warn("watch listener on {} failed; continuing with the next events", prefix, e);
        } finally {
            deliveryLock.unlock();
        }
    }

    private void deliverProgress(long revision) {
        deliveryLock.lock();
        try {
            if (closed) {
                return;
            }
            nextRevision = Math.max(nextRevision, revision + 1);
            listener.onProgress(revision);
        } catch (RuntimeException e) {
            log.warn("watch listener on {} failed on progress {}", prefix, revision, e);
        } finally {
            deliveryLock.unlock();
        }
    }

    /** Queued behind the batches published up to {@code revision}: all of them are delivered when it is taken. */
    private static final class ProgressMarker extends AbstractList<WatchEvent> {
        private final long revision;

        ProgressMarker(long revision) {
            this.revision = revision;
        }

        @Override
        public WatchEvent get(int index) {
            throw new IndexOutOfBoundsException(index);
        }

        @Override
        public int size() {
            return 0;
        }
    }

    /** Ends the watch with {@code error}, unless it is closed already. */
    void fail(StorageException error) {
        deliveryLock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            listener.onError(error);
        } catch (RuntimeException e) {
            log.warn("watch listener on {} failed on error {}", prefix, error.getMessage(), e);
        } finally {
            deliveryLock.unlock();
        }
        stop();
    }

    @Override
    public void close() {
        // Taking the delivery lock waits for a listener call in progress, so none starts after close returns.
        deliveryLock.lock();
        try {
            closed = true;
        } finally {
            deliveryLock.unlock();
        }
        stop();
    }

    private void stop() {
        hub.remove(this);
        if (Thread.currentThread() != thread) {
            thread.interrupt();
        }
    }
}
