package io.k4j.apiserver.registry.groups;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * Time cells of printed tables, as upstream's {@code duration.HumanDuration} and {@code translateTimestampSince}:
 * {@code 45s}, {@code 3m20s}, {@code 5h10m}, {@code 3d4h}, {@code 2y30d}. Thread-safe.
 */
public final class Ages {
    private final InstantSource clock;

    public Ages(InstantSource clock) {
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** Elapsed time since the RFC 3339 timestamp, or {@code <unknown>} when it is absent or unreadable. */
    public String since(String timestamp) {
        return parse(timestamp).map(instant -> humanDuration(Duration.between(instant, clock.instant()))).orElse("<unknown>");
    }

    public Instant now() {
        return clock.instant();
    }

    /** Parses an RFC 3339 timestamp (with or without fractional seconds). */
    public static Optional<Instant> parse(String timestamp) {
        if (timestamp == null || timestamp.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(OffsetDateTime.parse(timestamp).toInstant());
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    /** Upstream's {@code duration.HumanDuration}. */
    public static String humanDuration(Duration duration) {
        long seconds = duration.getSeconds();
        if (seconds < -1) {
            return "<invalid>";
        } else if (seconds < 0) {
            return "0s";
        } else if (seconds < 60 * 2) {
            return seconds + "s";
        }
        long minutes = seconds / 60;
        if (minutes < 10) {
            long remainder = seconds % 60;
            return remainder == 0 ? minutes + "m" : minutes + "m" + remainder + "s";
        } else if (minutes < 60 * 3) {
            return minutes + "m";
        }
        long hours = minutes / 60;
        if (hours < 8) {
            long remainder = minutes % 60;
            return remainder == 0 ? hours + "h" : hours + "h" + remainder + "m";
        } else if (hours < 48) {
            return hours + "h";
        } else if (hours < 24 * 8) {
            long remainder = hours % 24;
            return remainder == 0 ? hours / 24 + "d" : hours / 24 + "d" + remainder + "h";
        } else if (hours < 24 * 365 * 2) {
            return hours / 24 + "d";
        } else if (hours < 24 * 365 * 8) {
            long days = (hours / 24) % 365;
            return days == 0 ? hours / 24 / 365 + "y" : hours / 24 / 365 + "y" + days + "d";
        }
        return hours / 24 / 365 + "y";
    }
}
