package io.k4j.kubelet.server;

import static java.util.Objects.requireNonNull;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchService;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Reads a CRI log file ({@link CriLogLine}) as {@code kubectl logs} shows it: each line's content, partial entries of a
 * stream joined into one line (stamped with the time of its first part), optionally behind its timestamp, filtered by
 * {@code since}, only the last {@code tailLines}, cut at {@code limitBytes}; with {@code follow} it keeps reading what
 * the runtime appends until the container is no longer running. Lines that are not in the CRI format are skipped.
 *
 * <p>Stateless and thread-safe; each call reads its own file handle.
 */
public final class ContainerLogReader {
    private final Duration followRecheck;

    /**
     * @param followRecheck how long a follower waits for a change notice before checking again whether the file grew
     *     and the container still runs (file change notices may be missed, e.g. on some overlay file systems)
     */
    public ContainerLogReader(Duration followRecheck) {
        this.followRecheck = requireNonNull(followRecheck, "followRecheck is null");
    }

    /**
     * Writes the log to {@code output}, flushing whenever it caught up with the file.
     *
     * @param running whether the container still runs; a follower stops once it does not and the file is read whole
     */
    public void read(Path file, LogOptions options, OutputStream output, BooleanSupplier running) throws IOException {
        long skip = 0;
        if (options.tailLines().isPresent()) {
            long total = countLines(file, options.since());
            skip = Math.max(0, total - options.tailLines().getAsLong());
        }
        Writer writer = new Writer(output, options, skip);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
                WatchService watcher = options.follow() ? FileSystems.getDefault().newWatchService() : null) {
            if (watcher != null && file.getParent() != null) {
                file.getParent().register(watcher, StandardWatchEventKinds.ENTRY_MODIFY, StandardWatchEventKinds.ENTRY_CREATE);
            }
            InputStream input = Channels.newInputStream(channel);
            LineSplitter lines = new LineSplitter();
            byte[] buffer = new byte[64 * 1024];
            while (!writer.limitReached()) {
                int count = input.read(buffer);
                if (count > 0) {
                    for (byte[] line : lines.add(buffer, count)) {
                        CriLogLine.parse(line).ifPresent(writer::accept);
                        if (writer.limitReached()) {
                            break;
                        }
                    }
                    continue;
                }
                output.flush();
                if (!options.follow()) {
                    break;
                }
                // Checked before waiting: a container that stopped wrote its last line already; one more read drains it.
                boolean stillRunning = running.getAsBoolean();
                if (channel.size() > channel.position()) {
                    continue;
                }
                if (!stillRunning) {
                    break;
                }
                awaitChange(watcher);
            }
            output.flush();
        } catch (WriterFailed e) {
            throw e.getCause();
        }
    }

    private void awaitChange(WatchService watcher) throws IOException {
        try {
            java.nio.file.WatchKey key = watcher.poll(followRecheck.toNanos(), TimeUnit.NANOSECONDS);
            if (key != null) {
                key.pollEvents();
                key.reset();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while following a log");
        } catch (ClosedWatchServiceException e) {
            throw new IOException("log watch closed", e);
        }
    }

    /** How many lines (after joining partials) are at or after {@code since}. */
    private static long countLines(Path file, Optional<Instant> since) throws IOException {
        long count = 0;
        try (InputStream input = Channels.newInputStream(FileChannel.open(file, StandardOpenOption.READ))) {
            LineSplitter lines = new LineSplitter();
            Map<CriLogLine.Stream, Instant> firstPart = new EnumMap<>(CriLogLine.Stream.class);
            byte[] buffer = new byte[64 * 1024];
            while (true) {
                int read = input.read(buffer);
                if (read < 0) {
                    break;
                }
                for (byte[] line : lines.add(buffer, read)) {
                    Optional<CriLogLine> parsed = CriLogLine.parse(line);
                    if (parsed.isEmpty()) {
                        continue;
                    }
                    CriLogLine entry = parsed.get();
                    Instant stamp = firstPart.getOrDefault(entry.stream(), entry.timestamp());
                    if (entry.partial()) {
                        firstPart.putIfAbsent(entry.stream(), entry.timestamp());
                        continue;
                    }
                    firstPart.remove(entry.stream());
                    if (since.isEmpty() || !stamp.isBefore(since.get())) {
                        count++;
                    }
                }
            }
        }
        return count;
    }

    /** Splits bytes into lines at {@code \n}, keeping an unfinished last line for the next call. */
    private static final class LineSplitter {
        private final ByteArrayOutputStream pending = new ByteArrayOutputStream();

        java.util.List<byte[]> add(byte[] buffer, int count) {
            java.util.List<byte[]> lines = new java.util.ArrayList<>();
            int start = 0;
            for (int i = 0; i < count; i++) {
                if (buffer[i] == '\n') {
                    pending.write(buffer, start, i - start);
                    lines.add(pending.toByteArray());
                    pending.reset();
                    start = i + 1;
                }
            }
            pending.write(buffer, start, count - start);
            return lines;
        }
    }

    /** Joins partial entries, applies since/tail/limit and writes lines. */
    private static final class Writer {
        private final OutputStream output;
        private final LogOptions options;
        private final Map<CriLogLine.Stream, Partial> partials = new EnumMap<>(CriLogLine.Stream.class);
        private long toSkip;
        private long written;

        Writer(OutputStream output, LogOptions options, long toSkip) {
            this.output = output;
            this.options = options;
            this.toSkip = toSkip;
        }

        boolean limitReached() {
            return options.limitBytes().isPresent() && written >= options.limitBytes().getAsLong();
        }

        void accept(CriLogLine entry) {
            Partial partial = partials.get(entry.stream());
            if (entry.partial()) {
                if (partial == null) {
                    partial = new Partial(entry.timestamp(), entry.timestampText());
                    partials.put(entry.stream(), partial);
                }
                partial.content.writeBytes(entry.content());
                return;
            }
            partials.remove(entry.stream());
            Instant stamp = partial == null ? entry.timestamp() : partial.timestamp;
            String stampText = partial == null ? entry.timestampText() : partial.timestampText;
            if (options.since().isPresent() && stamp.isBefore(options.since().get())) {
                return;
            }
            if (toSkip > 0) {
                toSkip--;
                return;
            }
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            if (options.timestamps()) {
                line.writeBytes(stampText.getBytes(StandardCharsets.US_ASCII));
                line.write(' ');
            }
            if (partial != null) {
                line.writeBytes(partial.content.toByteArray());
            }
            line.writeBytes(entry.content());
            line.write('\n');
            write(line.toByteArray());
        }

        private void write(byte[] bytes) {
            int length = bytes.length;
            if (options.limitBytes().isPresent()) {
                length = (int) Math.min(length, options.limitBytes().getAsLong() - written);
            }
            try {
                output.write(bytes, 0, length);
            } catch (IOException e) {
                throw new WriterFailed(e);
            }
            written += length;
        }
    }

    private static final class Partial {
        final Instant timestamp;
        final String timestampText;
        final ByteArrayOutputStream content = new ByteArrayOutputStream();

        Partial(Instant timestamp, String timestampText) {
            this.timestamp = timestamp;
            this.timestampText = timestampText;
        }
    }

    /** Carries the client's write failure out of the line callback. */
    private static final class WriterFailed extends RuntimeException {
        WriterFailed(IOException cause) {
            super(cause);
        }

        @Override
        public synchronized IOException getCause() {
            return (IOException) super.getCause();
        }
    }
}
