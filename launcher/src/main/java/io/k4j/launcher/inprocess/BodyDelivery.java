package io.k4j.launcher.inprocess;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.k4j.apiserver.InProcessExchange;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Hands an in-process answer's body to a fabric8 consumer by its rules: one piece per {@link #consume()} call, then
 * {@link #done()}. Pieces wait in a queue until asked for, so the serving thread never waits for a consumer that asks
 * later (or never); only a streamed answer whose consumer falls {@value #MAX_QUEUED_BYTES} bytes behind holds the
 * server back, as a full socket would. A piece is delivered on whichever thread finds it due: the serving thread, or
 * the consumer's own when it asks.
 */
final class BodyDelivery implements InProcessExchange.Receiver, AsyncBody {
    private static final int MAX_QUEUED_BYTES = 4 * 1024 * 1024;

    private final HttpRequest request;
    private final AsyncBody.Consumer<List<ByteBuffer>> consumer;
    private final CompletableFuture<HttpResponse<AsyncBody>> response = new CompletableFuture<>();
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition drained = lock.newCondition();
    private final ArrayDeque<ByteBuffer> pieces = new ArrayDeque<>();
    private InProcessExchange exchange;
    private long queuedBytes;
    private long demand;
    private boolean streamed;
    private boolean ended;
    private boolean cancelled;
    private boolean delivering;

    BodyDelivery(HttpRequest request, AsyncBody.Consumer<List<ByteBuffer>> consumer) {
        this.request = requireNonNull(request, "request is null");
        this.consumer = requireNonNull(consumer, "consumer is null");
    }

    void attach(InProcessExchange served) {
        this.exchange = served;
    }

    CompletableFuture<HttpResponse<AsyncBody>> response() {
        return response;
    }

    @Override
    public void headers(int status, Map<String, List<String>> headers, boolean streamedBody) {
        lock.lock();
        try {
            streamed = streamedBody;
        } finally {
            lock.unlock();
        }
        response.complete(new InProcessResponse<>(request, status, headers, this));
    }

    @Override
    public void data(byte[] bytes, int offset, int length) throws IOException {
        lock.lock();
        try {
            if (cancelled) {
                throw new IOException("the client no longer reads this answer");
            }
            // A whole body is ours to keep; a streamed piece is copied, its array is the writer's.
            pieces.add(streamed ? ByteBuffer.wrap(Arrays.copyOfRange(bytes, offset, offset + length)) : ByteBuffer.wrap(bytes, offset, length));
            queuedBytes += length;
        } finally {
            lock.unlock();
        }
        deliverDue();
        lock.lock();
        try {
            while (queuedBytes > MAX_QUEUED_BYTES && !cancelled) {
                drained.await();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while the client read the answer");
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void end() {
        lock.lock();
        try {
            ended = true;
        } finally {
            lock.unlock();
        }
        deliverDue();
    }

    /** The serving thread failed without an answer. */
    void failed(Throwable failure) {
        response.completeExceptionally(failure);
        done.completeExceptionally(failure);
    }

    @Override
    public void consume() {
        lock.lock();
        try {
            demand++;
        } finally {
            lock.unlock();
        }
        deliverDue();
    }

    /** Delivers what is queued and asked for; a consume() from within the consumer only adds demand to this loop. */
    private void deliverDue() {
        while (true) {
            ByteBuffer next;
            lock.lock();
            try {
                if (delivering || cancelled) {
                    return;
                }
                if (pieces.isEmpty()) {
                    if (!ended) {
                        return;
                    }
                    next = null;
                } else if (demand > 0) {
                    demand--;
                    next = pieces.poll();
                    queuedBytes -= next.remaining();
                    drained.signalAll();
                    delivering = true;
                } else {
                    return;
                }
            } finally {
                lock.unlock();
            }
            if (next == null) {
                done.complete(null);
                return;
            }
            try {
                consumer.consume(List.of(next), this);
            } catch (Exception e) {
                done.completeExceptionally(e);
                cancel();
            } finally {
                lock.lock();
                try {
                    delivering = false;
                } finally {
                    lock.unlock();
                }
            }
        }
    }

    @Override
    public CompletableFuture<Void> done() {
        return done;
    }

    @Override
    public void cancel() {
        lock.lock();
        try {
            cancelled = true;
            pieces.clear();
            queuedBytes = 0;
            drained.signalAll();
        } finally {
            lock.unlock();
        }
        done.cancel(false);
        if (exchange != null) {
            exchange.cancel();
        }
    }
}
