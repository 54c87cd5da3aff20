package io.k4j.apiserver.stream;

import java.io.IOException;
import java.io.InputStream;

/**
 * An input stream defined by its bulk {@link #read(byte[], int, int)} alone: the single-byte read goes through it, so
 * that framing, limits and end-of-stream rules live in one method. Thread-safety is the subclass's.
 */
public abstract class BulkInputStream extends InputStream {
    @Override
    public final int read() throws IOException {
        byte[] one = new byte[1];
        int count = read(one, 0, 1);
        return count < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public abstract int read(byte[] buffer, int offset, int length) throws IOException;
}
