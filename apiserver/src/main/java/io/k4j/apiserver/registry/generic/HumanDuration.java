package io.k4j.apiserver.registry.generic;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * Ages and durations in printed tables, as upstream's {@code duration.HumanDuration} and
 * {@code translateTimestampSince}: {@code 45s}, {@code 3m20s}, {@code 5h10m}, {@code 3d4h}, {@code 2y30d}. The one
 * place every table printer takes them from. Stateless and thread-safe.
 */
public final class HumanDuration {
    /** What a table shows for a missing or unreadable timestamp. */
    public static final String UNKNOWN = "<unknown>";

    private HumanDuration() {}

    /** The time from the RFC 3339 timestamp to {@code now}, or {@link #UNKNOWN} when it is absent or unreadable. */
    public static String since(String timestamp, Instant now) {
        return parse(timestamp).map(instant -> format(Duration.between(instant, now))).orElse(UNKNOWN);
    }

    /** Parses an RFC 3339 timestamp (with or without fractional seconds); empty when absent or unreadable. */
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

    /**
     * A duration rounded as {@code kubectl} shows ages: seconds up to two minutes, then minutes (with seconds below
     * ten minutes), hours (with minutes below eight hours), days (with hours below eight days) and years (with days
     * below eight years). A duration slightly negative (clock skew up to a second) counts as now.
     */
    public static String format(Duration duration) {
        // Go truncates toward zero (int(d.Seconds())), so -1.5s is -1s and still counts as now.
        long seconds = duration.toSeconds();
        if (seconds < -1) {
            return "<invalid>";
        }
        if (seconds < 0) {
            return "0s";
        }
        if (seconds < 60 * 2) {
            return seconds + "s";
        }
        long minutes = seconds / 60;
        if (minutes < 10) {
            long remainder = seconds % 60;
            return remainder == 0 ? minutes + "m" : minutes + "m" + remainder + "s";
        }
        if (minutes < 60 * 3) {
            return minutes + "m";
        }
        long hours = minutes / 60;
        if (hours < 8) {
            long remainder = minutes % 60;
            return remainder == 0 ? hours + "h" : hours + "h" + remainder + "m";
        }
        if (hours < 48) {
            return hours + "h";
        }
        if (hours < 24 * 8) {
            long remainder = hours % 24;
            return remainder == 0 ? hours / 24 + "d" : hours / 24 + "d" + remainder + "h";
        }
        if (hours < 24 * 365 * 2) {
            return hours / 24 + "d";
        }
        if (hours < 24 * 365 * 8) {
            long days = hours / 24 % 365;
            return days == 0 ? hours / 24 / 365 + "y" : hours / 24 / 365 + "y" + days + "d";
        }
        return hours / 24 / 365 + "y";
    }
}
