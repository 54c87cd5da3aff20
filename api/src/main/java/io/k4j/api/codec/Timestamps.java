package io.k4j.api.codec;

import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;

/**
 * Timestamps in upstream's wire formats: {@code metav1.Time} is RFC 3339 in UTC with whole seconds
 * ({@code 2024-01-02T03:04:05Z}); {@code metav1.MicroTime} has exactly six fractional digits
 * ({@code 2024-01-02T03:04:05.123456Z}, used by Leases and events.k8s.io Events). Thread-safe (it only caches the
 * last second it formatted).
 */
public final class Timestamps {
    private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss'Z'").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter MICROS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

    /** The last second formatted: every write stamps the current second, usually several times. */
    private static volatile FormattedSecond lastFormatted = new FormattedSecond(Long.MIN_VALUE, "");

    private record FormattedSecond(long epochSecond, String text) {}

    private Timestamps() {}

    /** {@code metav1.Time}: truncated (not rounded) to the second, as upstream does. */
    public static String format(Instant instant) {
        long epochSecond = instant.getEpochSecond();
        FormattedSecond last = lastFormatted;
        if (last.epochSecond() == epochSecond) {
            return last.text();
        }
        String text = SECONDS.format(Instant.ofEpochSecond(epochSecond));
        lastFormatted = new FormattedSecond(epochSecond, text);
        return text;
    }

    /** {@code metav1.MicroTime}: truncated to the microsecond, always six digits. */
    public static String formatMicro(Instant instant) {
        return MICROS.format(instant.truncatedTo(ChronoUnit.MICROS));
    }

    /**
     * Parses an RFC 3339 timestamp with or without fractional seconds and with {@code Z} or a numeric offset.
     *
     * @throws IllegalArgumentException when the text is not RFC 3339
     */
    public static Instant parse(String text) {
        Instant whole = parseWholeSecondsUtc(text);
        if (whole != null) {
            return whole;
        }
        try {
            return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
        } catch (DateTimeParseException exception) {
            throw new IllegalArgumentException("parsing time \"" + text + "\" as \"2006-01-02T15:04:05Z07:00\": cannot parse", exception);
        }
    }

    /**
     * The form upstream writes, {@code 2024-01-02T03:04:05Z}, read without a formatter (every managed fields entry of
     * every write has one); null for any other text or an invalid date, which the formatter then reads or rejects.
     */
    private static Instant parseWholeSecondsUtc(String text) {
        if (text.length() != 20 || text.charAt(4) != '-' || text.charAt(7) != '-' || text.charAt(10) != 'T' || text.charAt(13) != ':'
                || text.charAt(16) != ':' || text.charAt(19) != 'Z') {
            return null;
        }
        int year = digits(text, 0, 4);
        int month = digits(text, 5, 2);
        int day = digits(text, 8, 2);
        int hour = digits(text, 11, 2);
        int minute = digits(text, 14, 2);
        int second = digits(text, 17, 2);
        if (year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59
                || day > YearMonth.of(year, month).lengthOfMonth()) {
            return null;
        }
        long epochDay = LocalDate.of(year, month, day).toEpochDay();
        return Instant.ofEpochSecond(epochDay * 86_400 + hour * 3_600L + minute * 60L + second);
    }

    /** The number written with exactly {@code count} ASCII digits at {@code start}, or -1. */
    private static int digits(String text, int start, int count) {
        int value = 0;
        for (int i = start; i < start + count; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}
