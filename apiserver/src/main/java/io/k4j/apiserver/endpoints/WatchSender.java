package io.k4j.apiserver.endpoints;

import static java.util.Objects.requireNonNull;

import io.k4j.apiserver.registry.generic.WatchCache;
import io.k4j.apiserver.registry.generic.WatchItem;
import java.io.ByteArrayOutputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * Serves one watch over a {@link HttpExchange.NonBlockingStream}: the thread the watcher's ready listener runs on (one
 * of the watch cache's notifying threads) sends its events on, and the watch's own thread only waits for the end, for
 * the deadline and for bookmarks. With a thread woken per watcher and event, a change to a thousand watchers cost a
 * thousand wake-ups, each thawing a stack to write one line and freezing it again.
 *
 * <p>One thread at a time drains the queue and sends ({@link #sending}); a send that completes later hands the draining
 * over to the thread that completes it. Items queued while one is in flight go out together in the next send.
 */
final class WatchSender {
    /** A send carries queued items up to about this many bytes; a long backlog goes out in several. */
    private static final int MAX_SEND_BYTES = 64 * 1024;

    private final WatchCache.Watcher watcher;
    private final HttpExchange.NonBlockingStream stream;
    private final Function<WatchItem, byte[]> encoder;
    private final CompletableFuture<Void> ended = new CompletableFuture<>();
    private final AtomicBoolean sending = new AtomicBoolean();
    private volatile boolean closed;

    /**
     * @param encoder the line to send for an item (ending in a newline), or null for an item not sent; never called
     *     for {@link WatchItem.Ended}
     */
    WatchSender(WatchCache.Watcher watcher, HttpExchange.NonBlockingStream stream, Function<WatchItem, byte[]> encoder) {
        this.watcher = requireNonNull(watcher, "watcher is null");
        this.stream = requireNonNull(stream, "stream is null");
        this.encoder = requireNonNull(encoder, "encoder is null");
    }

    /**
     * Sends the watcher's items until the watch ends (the cache ends it, the client goes, a send fails) or
     * {@code schedule}'s deadline passes, asking for its bookmarks. Returns once no send is in flight and none will
     * start, so that the response can end.
     */
    void serve(WatchSchedule schedule) throws InterruptedException {
        stream.onClientGone(failure -> ended.complete(null));
        watcher.onReady(this::pump);
        try {
            long wait;
            while (!ended.isDone() && (wait = schedule.nextWaitNanos(watcher)) > 0) {
                try {
                    ended.get(wait, TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    // The deadline or a bookmark is due: the schedule says which.
                } catch (ExecutionException e) {
                    throw new IllegalStateException("the end of a watch is never completed exceptionally", e);
                }
            }
        } finally {
            closeAndAwaitIdle();
        }
    }

    /** Runs when items were queued: drains and sends them unless another thread already does. */
    private void pump() {
        if (sending.compareAndSet(false, true)) {
            sendQueued();
        }
    }

    /** Drains and sends while items are queued; the caller holds {@link #sending}, which this releases or hands on. */
    private void sendQueued() {
        while (true) {
            byte[] chunk = closed ? null : drain();
            if (chunk == null) {
                sending.set(false);
                if (closed) {
                    synchronized (this) {
                        notifyAll();
                    }
                    return;
                }
                // An item queued after the drain found none, whose pump found the flag still set, is sent here.
                if (!watcher.hasQueued() || !sending.compareAndSet(false, true)) {
                    return;
                }
                continue;
            }
            // Whichever of this thread (once send returns) and the completion (once the bytes are written) comes second
            // goes on draining: the completion runs on this thread when the bytes could be written at once.
            AtomicBoolean handOff = new AtomicBoolean();
            stream.send(chunk, failure -> {
                if (failure != null) {
                    closed = true;
                    ended.complete(null);
                    sendQueued();
                } else if (!handOff.compareAndSet(false, true)) {
                    sendQueued();
                }
            });
            if (handOff.compareAndSet(false, true)) {
                return;
            }
        }
    }

    /** The queued items' lines, up to about {@link #MAX_SEND_BYTES}, or null when none is queued. */
    private byte[] drain() {
        byte[] first = null;
        ByteArrayOutputStream more = null;
        WatchItem item;
        while ((item = watcher.pollNow()) != null) {
            if (item instanceof WatchItem.Ended) {
                ended.complete(null);
                break;
            }
            byte[] line = encoder.apply(item);
            if (line == null) {
                continue;
            }
            if (first == null) {
                // The usual case, one event: its line goes out as encoded, shared by every watcher of the change.
                first = line;
            } else {
                if (more == null) {
                    more = new ByteArrayOutputStream(first.length + line.length);
                    more.writeBytes(first);
                }
                more.writeBytes(line);
            }
            if ((more == null ? first.length : more.size()) >= MAX_SEND_BYTES) {
                break;
            }
        }
        return more != null ? more.toByteArray() : first;
    }

    /** Stops sending: waits until no send is in flight and takes the flag for good, so none starts again. */
    private void closeAndAwaitIdle() throws InterruptedException {
        closed = true;
        synchronized (this) {
            // Bounded waits: a sender that released the flag just before seeing closed set does not notify.
            while (!sending.compareAndSet(false, true)) {
                wait(100);
            }
        }
    }
}
