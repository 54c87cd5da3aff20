package io.k4j.bench;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Follows a growing log file from the position it had when the tail was made: each {@link #poll} returns the complete
 * lines written since the previous one. Not thread-safe.
 */
final class LogTail implements AutoCloseable {
    private final RandomAccessFile file;
    private final StringBuilder partial = new StringBuilder();
    private final byte[] buffer = new byte[64 * 1024];

    private LogTail(RandomAccessFile file) {
        this.file = requireNonNull(file, "file is null");
    }

    /** A tail of {@code path} that starts at its current end. */
    static LogTail fromEnd(Path path) {
        try {
            RandomAccessFile file = new RandomAccessFile(path.toFile(), "r");
            file.seek(Files.size(path));
            return new LogTail(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The complete lines appended since the last poll (a line still being written waits for its newline). */
    List<String> poll() {
        List<String> lines = new ArrayList<>();
        try {
            int read;
            while ((read = file.read(buffer)) > 0) {
                partial.append(new String(buffer, 0, read, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int newline;
        while ((newline = partial.indexOf("\n")) >= 0) {
            lines.add(partial.substring(0, newline));
            partial.delete(0, newline + 1);
        }
        return lines;
    }

    @Override
    public void close() {
        try {
            file.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
