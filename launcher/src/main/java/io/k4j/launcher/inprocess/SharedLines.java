package io.k4j.launcher.inprocess;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The text messages of recent watch lines, shared by the in-process watches that receive the same line. The server
 * encodes a change once and hands every watcher of it the same array (see
 * {@link io.k4j.apiserver.InProcessExchange.Receiver#unchangingData}); the scheduler, the controller manager and the
 * node simulator all watch pods, and each used to decode that array into its own string of a few kilobytes. With one
 * string, the shared decoding of the event's object also recognises it by identity.
 *
 * <p>A direct-mapped table by the array's identity: a line whose slot another line took meanwhile is decoded again,
 * which costs what it did before. Thread-safe.
 */
final class SharedLines {
    /** A line's array and its message: the text before its only newline, which ends it. */
    private record Line(byte[] bytes, String message) {}

    private final AtomicReferenceArray<Line> slots;
    private final int maxLineBytes;

    /**
     * @param slots the lines remembered, a power of two
     * @param maxLineBytes the longest line remembered: the table keeps its lines until others take their slots, so
     *     this bounds what a quiet server holds on to (a pod's line is a few kilobytes, a ConfigMap's up to 1.5 MiB)
     */
    SharedLines(int slots, int maxLineBytes) {
        if (slots <= 0 || Integer.bitCount(slots) != 1) {
            throw new IllegalArgumentException("slots must be a power of two, not " + slots);
        }
        if (maxLineBytes <= 0) {
            throw new IllegalArgumentException("maxLineBytes must be positive, not " + maxLineBytes);
        }
        this.slots = new AtomicReferenceArray<>(slots);
        this.maxLineBytes = maxLineBytes;
    }

    /**
     * The message of {@code bytes}, which nobody changes, when they are one line ending in its only newline and no
     * longer than the longest line remembered; null otherwise.
     */
    String message(byte[] bytes) {
        if (bytes.length > maxLineBytes) {
            return null;
        }
        int hash = System.identityHashCode(bytes);
        int slot = (hash ^ (hash >>> 16)) & (slots.length() - 1);
        Line line = slots.get(slot);
        if (line != null && line.bytes() == bytes) {
            return line.message();
        }
        int newline = indexOfNewline(bytes);
        if (newline < 0 || newline != bytes.length - 1) {
            return null;
        }
        String message = new String(bytes, 0, newline, StandardCharsets.UTF_8);
        slots.set(slot, new Line(bytes, message));
        return message;
    }

    private static int indexOfNewline(byte[] bytes) {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == '\n') {
                return i;
            }
        }
        return -1;
    }
}
