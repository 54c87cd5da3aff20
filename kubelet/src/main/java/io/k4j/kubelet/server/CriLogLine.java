package io.k4j.kubelet.server;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Optional;

/**
 * One entry of a CRI log file: {@code <RFC 3339 timestamp> <stdout|stderr> <F|P> <content>}, where {@code P} marks a
 * partial line whose rest follows in the next entries of the same stream and {@code F} ends a line. The content is
 * raw bytes (not necessarily UTF-8).
 */
public record CriLogLine(Instant timestamp, String timestampText, Stream stream, boolean partial, byte[] content) {
    public enum Stream {
        STDOUT,
        STDERR
    }

    public CriLogLine {
        requireNonNull(timestamp, "timestamp is null");
        requireNonNull(timestampText, "timestampText is null");
        requireNonNull(stream, "stream is null");
        content = content.clone();
    }

    /** Parses one line of a log file without its newline; empty when it is not in the CRI format. */
    public static Optional<CriLogLine> parse(byte[] line) {
        int first = indexOf(line, 0);
        if (first < 0) {
            return Optional.empty();
        }
        int second = indexOf(line, first + 1);
        if (second < 0) {
            return Optional.empty();
        }
        String timestampText = new String(line, 0, first, StandardCharsets.US_ASCII);
        Instant timestamp;
        try {
            timestamp = OffsetDateTime.parse(timestampText).toInstant();
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
        String streamText = new String(line, first + 1, second - first - 1, StandardCharsets.US_ASCII);
        Stream stream;
        switch (streamText) {
            case "stdout" -> stream = Stream.STDOUT;
            case "stderr" -> stream = Stream.STDERR;
            default -> {
                return Optional.empty();
            }
        }
        // The tag is "F" or "P", possibly with more ":"-separated tags after it; older runtimes had no tag at all.
        int third = indexOf(line, second + 1);
        boolean partial = false;
        int contentStart = second + 1;
        if (third >= 0) {
            String tag = new String(line, second + 1, third - second - 1, StandardCharsets.US_ASCII);
            String firstTag = tag.split(":", 2)[0];
            if (firstTag.equals("F") || firstTag.equals("P")) {
                partial = firstTag.equals("P");
                contentStart = third + 1;
            }
        } else {
            String tag = new String(line, second + 1, line.length - second - 1, StandardCharsets.US_ASCII);
            if (tag.equals("F") || tag.equals("P")) {
                partial = tag.equals("P");
                contentStart = line.length;
            }
        }
        return Optional.of(new CriLogLine(timestamp, timestampText, stream, partial, Arrays.copyOfRange(line, contentStart, line.length)));
    }

    private static int indexOf(byte[] line, int from) {
        for (int i = from; i < line.length; i++) {
            if (line[i] == ' ') {
                return i;
            }
        }
        return -1;
    }

    @Override
    public byte[] content() {
        return content.clone();
    }
}
