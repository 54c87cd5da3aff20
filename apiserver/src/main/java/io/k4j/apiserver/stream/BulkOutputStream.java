package io.k4j.apiserver.stream;

import java.io.IOException;
import java.io.OutputStream;

/**
 * An output stream defined by its bulk {@link #write(byte[], int, int)} alone: the single-byte write goes through it,
 * so that framing and closed-state checks live in one method. Thread-safety is the subclass's.
 */
public abstract class BulkOutputStream extends OutputStream {
    @Override
    public final void write(int value) throws IOException {
        write(new byte[] {(byte) value}, 0, 1);
    }

    @Override
    public abstract void write(byte[] buffer, int offset, int length) throws IOException;

    /**
     * Writes a whole array that nobody changes afterwards, such as a watch event's line, which all the watchers of a
     * change share. A stream may then keep the array, or what it made of it, instead of copying; by default it is
     * written as any other bytes.
     */
    public void writeUnchanging(byte[] bytes) throws IOException {
        write(bytes, 0, bytes.length);
    }
}
