package io.k4j.storage.etcd;

import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.LongUnaryOperator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.common.exception.CompactedException;
import io.etcd.jetcd.common.exception.EtcdException;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchResponse;
import io.k4j.storage.KeyValue;
import io.k4j.storage.StorageException;
import io.k4j.storage.Watch;
import io.k4j.storage.WatchEvent;
import io.k4j.storage.WatchListener;

/**
 * One SPI watch on top of a sequence of etcd watch streams.
 *
 * <p>jetcd reopens a broken watch stream by itself, but it may resume from the revision in the server's header rather
 * than after the last event it delivered, which can skip events. So every jetcd watcher here is one attempt: the
 * first failure of an attempt closes it and a new attempt starts, after a backoff, from the revision after the last
 * event this watch delivered. Only errors that retrying cannot fix (compaction, a rejected request) end the watch,
 * through {@link WatchListener#onError}.
 *
 * <p>jetcd calls back on its network threads. Those must never block (a listener calling back into the store would
 * wait for a reply that the blocked thread has to read), so events are queued and one delivery thread per watch
 * calls the listener.
 *
 * <p>Thread-safe.
 */
final class EtcdWatch implements Watch {
    private static final Logger LOG = LoggerFactory.getLogger(EtcdWatch.class);
    private static final long INITIAL_BACKOFF_MILLIS = 100;
    private static final long MAX_BACKOFF_MILLIS = 2000;

    private final io.etcd.jetcd.Watch watchClient;
    private final String prefix;
    private final ByteSequence rangeStart;
    private final ByteSequence rangeEnd;
    private final WatchListener listener;
    private final ScheduledExecutorService scheduler;
    private final LongUnaryOperator compactedRevisionAtLeast;
    private final Consumer<EtcdWatch> onClose;

    private final Object stateLock = new Object();
    /** The revision of the next event to deliver: where a new attempt starts. */
    private long nextRevision;
    /** The jetcd watcher whose events are delivered, or null between attempts. */
    private Attempt attempt;
    private long backoffMillis;
    /** A failure that ends the watch is queued; no more attempts start. */
    private boolean failed;
    /** Written under stateLock; read by the delivery thread under deliveryLock. */
    private volatile boolean closed;

    private final LinkedBlockingQueue<Delivery> deliveries = new LinkedBlockingQueue<>();
    /** Held while the listener runs, so close can wait for a running call to finish. */
    private final ReentrantLock deliveryLock = new ReentrantLock();
    private final Thread deliveryThread;

    EtcdWatch(
            io.etcd.jetcd.Watch watchClient,
            String prefix,
            ByteSequence rangeStart,
            ByteSequence rangeEnd,
            long firstRevision,
            WatchListener listener,
            ScheduledExecutorService scheduler,
            LongUnaryOperator compactedRevisionAtLeast,
            Consumer<EtcdWatch> onClose) {
        this.watchClient = requireNonNull(watchClient, "watchClient is null");
        this.prefix = requireNonNull(prefix, "prefix is null");
        this.rangeStart = requireNonNull(rangeStart, "rangeStart is null");
        this.rangeEnd = requireNonNull(rangeEnd, "rangeEnd is null");
        this.listener = requireNonNull(listener, "listener is null");
        this.scheduler = requireNonNull(scheduler, "scheduler is null");
        this.compactedRevisionAtLeast = requireNonNull(compactedRevisionAtLeast, "compactedRevisionAtLeast is null");
        this.onClose = requireNonNull(onClose, "onClose is null");
        if (firstRevision <= 0) {
            throw new IllegalArgumentException("firstRevision must be positive: " + firstRevision);
        }
        this.nextRevision = firstRevision;
        this.deliveryThread = Thread.ofVirtual().name("k4j-etcd-watch " + prefix).unstarted(this::deliverUntilDone);
    }

    void start() {
        deliveryThread.start();
        startAttempt();
    }

    @Override
    public void close() {
        Attempt current;
        synchronized (stateLock) {
            if (closed) {
                return;
            }
            closed = true;
            current = attempt;
            attempt = null;
        }
        if (current != null) {
            current.closeWatcher();
        }
        deliveries.add(new Delivery.Stop());
        // Wait for a listener call that is running now; a call from the listener itself holds the lock already.
        deliveryLock.lock();
        deliveryLock.unlock();
        onClose.accept(this);
    }

    private void startAttempt() {
        Attempt next;
        long fromRevision;
        synchronized (stateLock) {
            if (closed || failed || attempt != null) {
                return;
            }
            next = new Attempt();
            attempt = next;
            fromRevision = nextRevision;
        }
        WatchOption option = WatchOption.builder()
                .withRange(rangeEnd)
                .withRevision(fromRevision)
                .withPrevKV(true)
                // The created response shows the stream works again, which resets the backoff even when idle.
                .withCreateNotify(true)
                // A member cut off from its cluster would otherwise keep the stream open and silently send nothing.
                .withRequireLeader(true)
                .build();
        io.etcd.jetcd.Watch.Watcher watcher;
        try {
            // Outside stateLock: jetcd calls onError while holding its own lock, so taking both here could deadlock.
            watcher = watchClient.watch(rangeStart, option, next);
        }
        catch (RuntimeException e) {
            next.onError(e);
            return;
        }
        next.bind(watcher);
    }

    /** Called with stateLock held, when the current attempt broke for a reason that retrying may fix. */
    private void retryLater(Throwable cause) {
        backoffMillis = backoffMillis == 0 ? INITIAL_BACKOFF_MILLIS : Math.min(MAX_BACKOFF_MILLIS, backoffMillis * 2);
        LOG.warn("etcd watch on {} broke; resuming from revision {} in {} ms: {}", prefix, nextRevision, backoffMillis,
                cause.toString());
        try {
            scheduler.schedule(this::startAttempt, backoffMillis, MILLISECONDS);
        }
        catch (RejectedExecutionException e) {
            // The store is closing; it closes this watch too.
            fail(new Delivery.Failure(new StorageException.Unavailable("the etcd store is closed", cause)));
        }
    }

    /** Called with stateLock held: ends the watch with an error once the events before it are delivered. */
    private void fail(Delivery failure) {
        failed = true;
        deliveries.add(failure);
    }

    private void deliverUntilDone() {
        while (true) {
            Delivery delivery;
            try {
                delivery = deliveries.take();
            }
            catch (InterruptedException e) {
                return;
            }
            if (delivery instanceof Delivery.Stop) {
                return;
            }
            StorageException error = switch (delivery) {
                case Delivery.Stop stop -> throw new IllegalStateException("handled above");
                case Delivery.Events events -> null;
                case Delivery.Progress progress -> null;
                case Delivery.Failure failure -> failure.error();
                // Asked on this thread: it is a blocking etcd request.
                case Delivery.CompactedHistory compacted -> new StorageException.Compacted(compacted.requestedRevision(),
                        compactedRevisionAtLeast.applyAsLong(compacted.requestedRevision() + 1));
            };
            deliveryLock.lock();
            try {
                if (closed) {
                    return;
                }
                if (delivery instanceof Delivery.Progress progress) {
                    listener.onProgress(progress.revision());
                }
                else if (error == null) {
                    listener.onEvents(((Delivery.Events) delivery).events());
                }
                else {
                    listener.onError(error);
                }
            }
            catch (RuntimeException e) {
                LOG.error("watch listener on {} failed", prefix, e);
            }
            finally {
                deliveryLock.unlock();
            }
            if (error != null) {
                close();
                return;
            }
        }
    }

    /** What the delivery thread hands to the listener, in order. */
    private sealed interface Delivery {
        record Events(List<WatchEvent> events) implements Delivery {
            public Events {
                events = List.copyOf(events);
            }
        }

        /** Everything up to {@code revision} was sent (etcd's progress notification). */
        record Progress(long revision) implements Delivery {}

        record Failure(StorageException error) implements Delivery {}

        /** History from {@code requestedRevision} on is compacted away. */
        record CompactedHistory(long requestedRevision) implements Delivery {}

        record Stop() implements Delivery {}
    }

    /** One jetcd watcher. Its callbacks count only while it is the current attempt. */
    private final class Attempt implements io.etcd.jetcd.Watch.Listener {
        private io.etcd.jetcd.Watch.Watcher watcher;
        private boolean abandoned;

        void bind(io.etcd.jetcd.Watch.Watcher boundWatcher) {
            boolean closeNow;
            synchronized (stateLock) {
                watcher = boundWatcher;
                closeNow = abandoned || attempt != this;
            }
            if (closeNow) {
                boundWatcher.close();
            }
        }

        /** Called with stateLock held: stop delivering this attempt's events and close its watcher soon. */
        private void abandon() {
            abandoned = true;
            attempt = null;
            io.etcd.jetcd.Watch.Watcher toClose = watcher;
            if (toClose != null) {
                // Not inline: jetcd may be calling us while holding its own lock, and closing takes it again.
                try {
                    scheduler.execute(toClose::close);
                }
                catch (RejectedExecutionException e) {
                    // The store is closing and closes the whole jetcd client.
                }
            }
        }

        void closeWatcher() {
            io.etcd.jetcd.Watch.Watcher toClose;
            synchronized (stateLock) {
                abandoned = true;
                toClose = watcher;
            }
            if (toClose != null) {
                toClose.close();
            }
        }

        @Override
        public void onNext(WatchResponse response) {
            synchronized (stateLock) {
                if (closed || attempt != this) {
                    return;
                }
                backoffMillis = 0;
                if (response.isProgressNotify()) {
                    long revision = response.getHeader().getRevision();
                    if (revision >= nextRevision - 1) {
                        nextRevision = revision + 1;
                        deliveries.add(new Delivery.Progress(revision));
                    }
                    return;
                }
                // etcd sends all events of one revision in one response, so a response is a valid batch.
                List<WatchEvent> events = new ArrayList<>(response.getEvents().size());
                long missingPreviousAt = 0;
                for (io.etcd.jetcd.watch.WatchEvent event : response.getEvents()) {
                    long revision = event.getKeyValue().getModRevision();
                    if (revision < nextRevision) {
                        continue;
                    }
                    WatchEvent converted = convert(event);
                    if (converted == null) {
                        missingPreviousAt = revision;
                        break;
                    }
                    events.add(converted);
                }
                if (missingPreviousAt != 0) {
                    long cut = missingPreviousAt;
                    events.removeIf(event -> event.revision() >= cut);
                }
                if (!events.isEmpty()) {
                    nextRevision = events.getLast().revision() + 1;
                    deliveries.add(new Delivery.Events(events));
                }
                if (missingPreviousAt != 0) {
                    // etcd drops the previous value when the revision before the event is compacted away; the event
                    // cannot be delivered faithfully, so the watcher must start over from a fresh list.
                    abandon();
                    fail(new Delivery.CompactedHistory(missingPreviousAt - 1));
                }
            }
        }

        @Override
        public void onError(Throwable failure) {
            synchronized (stateLock) {
                if (closed || attempt != this) {
                    return;
                }
                abandon();
                Throwable cause = EtcdErrors.unwrap(failure);
                if (cause instanceof CompactedException compacted) {
                    fail(new Delivery.Failure(new StorageException.Compacted(nextRevision,
                            Math.max(nextRevision + 1, compacted.getCompactedRevision()))));
                }
                else if (EtcdErrors.isCompacted(cause)) {
                    fail(new Delivery.CompactedHistory(nextRevision));
                }
                else if (isPermanent(cause)) {
                    fail(new Delivery.Failure(EtcdErrors.unavailable("watch on " + prefix, cause)));
                }
                else {
                    retryLater(cause);
                }
            }
        }

        @Override
        public void onCompleted() {
            synchronized (stateLock) {
                if (closed || attempt != this) {
                    return;
                }
                // The server ended the stream without an error (for example while shutting down): resume like
                // after any other break, since nobody asked this watch to stop.
                abandon();
                retryLater(new IllegalStateException("etcd ended the watch stream"));
            }
        }
    }

    /** Errors that the same request would get again: retrying them would loop forever. */
    private static boolean isPermanent(Throwable cause) {
        if (!(cause instanceof EtcdException etcdException)) {
            return false;
        }
        return switch (etcdException.getErrorCode()) {
            case INVALID_ARGUMENT, PERMISSION_DENIED, UNAUTHENTICATED, FAILED_PRECONDITION, OUT_OF_RANGE, UNIMPLEMENTED -> true;
            case CANCELLED, UNKNOWN, DEADLINE_EXCEEDED, NOT_FOUND, ALREADY_EXISTS, RESOURCE_EXHAUSTED, ABORTED, INTERNAL,
                    UNAVAILABLE, DATA_LOSS -> false;
        };
    }

    /** The SPI event, or null when etcd left out the previous value that the event needs. */
    private static WatchEvent convert(io.etcd.jetcd.watch.WatchEvent event) {
        io.etcd.jetcd.KeyValue current = event.getKeyValue();
        io.etcd.jetcd.KeyValue previous = event.getPrevKV();
        // jetcd hands out an empty KeyValue when the event has none; etcd keys are never empty.
        boolean hasPrevious = previous != null && !previous.getKey().isEmpty();
        return switch (event.getEventType()) {
            case PUT -> {
                KeyValue currentValue = EtcdKeyValueStore.toKeyValue(current);
                if (current.getVersion() == 1) {
                    yield new WatchEvent.Put(currentValue, null);
                }
                yield hasPrevious ? new WatchEvent.Put(currentValue, EtcdKeyValueStore.toKeyValue(previous)) : null;
            }
            case DELETE -> hasPrevious
                    ? new WatchEvent.Delete(EtcdKeyValueStore.toKeyValue(previous), current.getModRevision())
                    : null;
            case UNRECOGNIZED -> throw new IllegalStateException("etcd sent an unknown watch event type for "
                    + current.getKey());
        };
    }
}
