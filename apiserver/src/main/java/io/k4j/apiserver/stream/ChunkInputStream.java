package io.k4j.apiserver.stream;

import static java.util.Objects.requireNonNull;

import java.io.InterruptedIOException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An input stream fed chunk by chunk by a connection's reader thread (a WebSocket channel's messages, a SPDY stream's
 * data frames). At most {@code capacity} chunks wait, so a slow consumer of one stream holds back the reader instead
 * of filling the heap; the end never waits for room, and what was offered before it stays readable.
 *
 * <p>Thread-safe for one producer and one consumer.
 */
public final class ChunkInputStream extends BulkInputStream {
    private static final byte[] END = new byte[0];

    private final BlockingQueue<byte[]> chunks = new LinkedBlockingQueue<>();
    private final Semaphore room;
    private final AtomicBoolean ended = new AtomicBoolean();
    private final String description;
    private byte[] current = new byte[0];
    private int position;
    private boolean finished;

    /** @param description what the stream carries, for the message of an interrupted read */
    public ChunkInputStream(int capacity, String description) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive, got " + capacity);
        }
        this.room = new Semaphore(capacity);
        this.description = requireNonNull(description, "description is null");
    }

    /** Queues a chunk once there is room; empty chunks and chunks after the end are dropped. */
    public void offer(byte[] chunk) throws InterruptedException {
        if (chunk.length == 0 || ended.get()) {
            return;
        }
        room.acquire();
        chunks.add(chunk);
    }

    /** Ends the stream after the chunks already offered. */
    public void end() {
        if (ended.compareAndSet(false, true)) {
            chunks.add(END);
        }
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws InterruptedIOException {
        if (length == 0) {
            return 0;
        }
        while (position >= current.length) {
            if (finished) {
                return -1;
            }
            byte[] next;
            try {
                next = chunks.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while reading " + description);
            }
            if (next == END) {
                finished = true;
            } else {
                room.release();
                current = next;
                position = 0;
            }
        }
        int count = Math.min(length, current.length - position);
        System.arraycopy(current, position, buffer, offset, count);
        position += count;
        return count;
    }
}
