package io.k4j.api.cron;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A parsed CronJob schedule in the syntax upstream accepts (robfig/cron v3 {@code ParseStandard}): five fields
 * (minute, hour, day of month, month, day of week) with lists, ranges, steps, {@code *}, {@code ?} and month and
 * day names; the descriptors {@code @yearly}, {@code @annually}, {@code @monthly}, {@code @weekly},
 * {@code @daily}, {@code @midnight}, {@code @hourly} and {@code @every <duration>}; and an optional
 * {@code TZ=}/{@code CRON_TZ=} prefix. Error messages are upstream's. {@link #next} gives the activation times as
 * robfig/cron's {@code SpecSchedule.Next}, which the CronJob controller uses. Immutable and thread-safe.
 *
 * @param zone the zone of a {@code TZ=} prefix, if any
 * @param fields the allowed values of the five fields as bit sets (bit n set when value n matches, and
 *     {@link #STAR_BIT} when the field was written as {@code *} or {@code ?} without a step), or all zero for an
 *     {@code @every} schedule
 * @param interval the interval of an {@code @every} schedule
 */
public record CronSchedule(Optional<ZoneId> zone, List<Long> fields, Optional<Duration> interval) {
    /** Marks a field written as a wildcard: day-of-month and day-of-week then combine with AND instead of OR. */
    public static final long STAR_BIT = 1L << 63;
    /** robfig/cron gives up looking for a next time after five years. */
    private static final int YEARS_TO_SEARCH = 5;
    private static final Bounds MINUTES = new Bounds(0, 59, Map.of());
    private static final Bounds HOURS = new Bounds(0, 23, Map.of());
    private static final Bounds DAYS_OF_MONTH = new Bounds(1, 31, Map.of());
    private static final Bounds MONTHS = new Bounds(1, 12, Map.ofEntries(
            Map.entry("jan", 1), Map.entry("feb", 2), Map.entry("mar", 3), Map.entry("apr", 4), Map.entry("may", 5), Map.entry("jun", 6),
            Map.entry("jul", 7), Map.entry("aug", 8), Map.entry("sep", 9), Map.entry("oct", 10), Map.entry("nov", 11), Map.entry("dec", 12)));
    private static final Bounds DAYS_OF_WEEK = new Bounds(0, 6, Map.of(
            "sun", 0, "mon", 1, "tue", 2, "wed", 3, "thu", 4, "fri", 5, "sat", 6));
    private static final List<Bounds> BOUNDS = List.of(MINUTES, HOURS, DAYS_OF_MONTH, MONTHS, DAYS_OF_WEEK);
    private static final Pattern DURATION_PART = Pattern.compile("([0-9]*(?:\\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)");

    public CronSchedule {
        requireNonNull(zone, "zone is null");
        fields = List.copyOf(requireNonNull(fields, "fields is null"));
        requireNonNull(interval, "interval is null");
    }

    /** A schedule that cannot be parsed; the message is upstream's. */
    public static final class InvalidScheduleException extends Exception {
        public InvalidScheduleException(String message) {
            super(message, null, false, false);
        }
    }

    private record Bounds(int min, int max, Map<String, Integer> names) {}

    /** Parses a schedule as upstream's {@code cron.ParseStandard}. */
    public static CronSchedule parse(String spec) throws InvalidScheduleException {
        if (spec.isEmpty()) {
            throw new InvalidScheduleException("empty spec string");
        }
        Optional<ZoneId> zone = Optional.empty();
        if (spec.startsWith("TZ=") || spec.startsWith("CRON_TZ=")) {
            int space = spec.indexOf(' ');
            int equals = spec.indexOf('=');
            String name = space < 0 ? spec.substring(equals + 1) : spec.substring(equals + 1, space);
            zone = Optional.of(loadLocation(name).orElseThrow(() -> new InvalidScheduleException(
                    "provided bad location " + name + ": unknown time zone " + name)));
            spec = space < 0 ? "" : spec.substring(space).trim();
        }
        if (spec.startsWith("@")) {
            return parseDescriptor(spec, zone);
        }
        String[] parts = spec.trim().isEmpty() ? new String[0] : spec.trim().split("\\s+");
        if (parts.length != 5) {
            throw new InvalidScheduleException("expected exactly 5 fields, found " + parts.length + ": [" + String.join(" ", parts) + "]");
        }
        Long[] bits = new Long[5];
        for (int i = 0; i < 5; i++) {
            bits[i] = field(parts[i], BOUNDS.get(i));
        }
        return new CronSchedule(zone, Arrays.asList(bits), Optional.empty());
    }

    /** Go's {@code time.LoadLocation} over the IANA names the JVM knows; {@code UTC} and empty are UTC. */
    public static Optional<ZoneId> loadLocation(String name) {
        if (name.isEmpty() || name.equals("UTC")) {
            return Optional.of(ZoneId.of("UTC"));
        }
        if (name.equals("Local")) {
            return Optional.of(ZoneId.systemDefault());
        }
        return ZoneId.getAvailableZoneIds().contains(name) ? Optional.of(ZoneId.of(name)) : Optional.empty();
    }

    private static CronSchedule parseDescriptor(String descriptor, Optional<ZoneId> zone) throws InvalidScheduleException {
        String[] fields = switch (descriptor) {
            case "@yearly", "@annually" -> new String[] {"0", "0", "1", "1", "*"};
            case "@monthly" -> new String[] {"0", "0", "1", "*", "*"};
            case "@weekly" -> new String[] {"0", "0", "*", "*", "0"};
            case "@daily", "@midnight" -> new String[] {"0", "0", "*", "*", "*"};
            case "@hourly" -> new String[] {"0", "*", "*", "*", "*"};
            default -> null;
        };
        if (fields != null) {
            Long[] bits = new Long[5];
            for (int i = 0; i < 5; i++) {
                bits[i] = field(fields[i], BOUNDS.get(i));
            }
            return new CronSchedule(zone, Arrays.asList(bits), Optional.empty());
        }
        String every = "@every ";
        if (descriptor.startsWith(every)) {
            String text = descriptor.substring(every.length());
            Duration duration = parseDuration(text).orElseThrow(() -> new InvalidScheduleException(
                    "failed to parse duration " + descriptor + ": time: invalid duration \"" + text + "\""));
            return new CronSchedule(zone, List.of(0L, 0L, 0L, 0L, 0L), Optional.of(duration));
        }
        throw new InvalidScheduleException("unrecognized descriptor: " + descriptor);
    }

    /** Go's {@code time.ParseDuration}, e.g. {@code 1h30m}, {@code 90s}, {@code 1.5h}. */
    static Optional<Duration> parseDuration(String text) {
        String rest = text;
        boolean negative = false;
        if (rest.startsWith("-") || rest.startsWith("+")) {
            negative = rest.startsWith("-");
            rest = rest.substring(1);
        }
        if (rest.equals("0")) {
            return Optional.of(Duration.ZERO);
        }
        if (rest.isEmpty()) {
            return Optional.empty();
        }
        Matcher matcher = DURATION_PART.matcher(rest);
        double nanos = 0;
        int position = 0;
        while (position < rest.length()) {
            if (!matcher.find(position) || matcher.start() != position || matcher.group(1).isEmpty() || matcher.group(1).equals(".")) {
                return Optional.empty();
            }
            double value = Double.parseDouble(matcher.group(1));
            double unit = switch (matcher.group(2)) {
                case "ns" -> 1;
                case "us", "µs", "μs" -> 1e3;
                case "ms" -> 1e6;
                case "s" -> 1e9;
                case "m" -> 60e9;
                default -> 3600e9;
            };
            nanos += value * unit;
            position = matcher.end();
        }
        Duration duration = Duration.ofNanos((long) nanos);
        return Optional.of(negative ? duration.negated() : duration);
    }

    private static long field(String field, Bounds bounds) throws InvalidScheduleException {
        long bits = 0;
        for (String expression : field.split(",", -1)) {
            bits |= range(expression, bounds);
        }
        return bits;
    }

    private static long range(String expression, Bounds bounds) throws InvalidScheduleException {
        String[] rangeAndStep = expression.split("/", -1);
        String[] lowAndHigh = rangeAndStep[0].split("-", -1);
        boolean single = lowAndHigh.length == 1;
        int start;
        int end;
        long extra = 0;
        if (lowAndHigh[0].equals("*") || lowAndHigh[0].equals("?")) {
            start = bounds.min();
            end = bounds.max();
            extra = STAR_BIT;
        } else {
            start = intOrName(lowAndHigh[0], bounds);
            if (lowAndHigh.length == 1) {
                end = start;
            } else if (lowAndHigh.length == 2) {
                end = intOrName(lowAndHigh[1], bounds);
            } else {
                throw new InvalidScheduleException("too many hyphens: " + expression);
            }
        }
        int step;
        if (rangeAndStep.length == 1) {
            step = 1;
        } else if (rangeAndStep.length == 2) {
            step = parseInt(rangeAndStep[1]);
            // "N/step" means "N-max/step".
            if (single) {
                end = bounds.max();
            }
            // "*/2" selects every other value, so it is no longer a wildcard for the day-matching rule.
            if (step > 1) {
                extra = 0;
            }
        } else {
            throw new InvalidScheduleException("too many slashes: " + expression);
        }
        if (start < bounds.min()) {
            throw new InvalidScheduleException("beginning of range (" + start + ") below minimum (" + bounds.min() + "): " + expression);
        }
        if (end > bounds.max()) {
            throw new InvalidScheduleException("end of range (" + end + ") above maximum (" + bounds.max() + "): " + expression);
        }
        if (start > end) {
            throw new InvalidScheduleException("beginning of range (" + start + ") beyond end of range (" + end + "): " + expression);
        }
        if (step == 0) {
            throw new InvalidScheduleException("step of range should be a positive number: " + expression);
        }
        long bits = extra;
        for (int value = start; value <= end; value += step) {
            bits |= 1L << value;
        }
        return bits;
    }

    /**
     * The first activation strictly after {@code after}, in the schedule's {@code TZ=} zone if it has one, else in
     * {@code after}'s zone; empty when there is none within five years (e.g. {@code 0 0 30 2 *}).
     */
    public Optional<ZonedDateTime> next(ZonedDateTime after) {
        if (interval.isPresent()) {
            // @every: at least one second, whole seconds, counted from the previous activation.
            long seconds = Math.max(1, interval.get().getSeconds());
            return Optional.of(after.truncatedTo(ChronoUnit.SECONDS).plusSeconds(seconds));
        }
        ZoneId location = zone.orElse(after.getZone());
        ZonedDateTime original = after.withZoneSameInstant(location);
        ZonedDateTime time = original.truncatedTo(ChronoUnit.MINUTES).plusMinutes(1);
        int yearLimit = time.getYear() + YEARS_TO_SEARCH;
        while (time.getYear() <= yearLimit) {
            if (!matches(fields.get(3), time.getMonthValue())) {
                time = time.toLocalDate().withDayOfMonth(1).plusMonths(1).atStartOfDay(location);
                continue;
            }
            if (!dayMatches(time)) {
                time = time.toLocalDate().plusDays(1).atStartOfDay(location);
                continue;
            }
            if (!matches(fields.get(1), time.getHour())) {
                time = time.truncatedTo(ChronoUnit.HOURS).plusHours(1);
                continue;
            }
            if (!matches(fields.get(0), time.getMinute())) {
                time = time.plusMinutes(1);
                continue;
            }
            return Optional.of(time.withZoneSameInstant(after.getZone()));
        }
        return Optional.empty();
    }

    private boolean dayMatches(ZonedDateTime time) {
        long daysOfMonth = fields.get(2);
        long daysOfWeek = fields.get(4);
        boolean dayOfMonthMatches = matches(daysOfMonth, time.getDayOfMonth());
        boolean dayOfWeekMatches = matches(daysOfWeek, time.getDayOfWeek().getValue() % 7);
        // As in cron: when either day field is a wildcard both must match, otherwise either may.
        if ((daysOfMonth & STAR_BIT) != 0 || (daysOfWeek & STAR_BIT) != 0) {
            return dayOfMonthMatches && dayOfWeekMatches;
        }
        return dayOfMonthMatches || dayOfWeekMatches;
    }

    private static boolean matches(long bits, int value) {
        return (bits & (1L << value)) != 0;
    }

    private static int intOrName(String text, Bounds bounds) throws InvalidScheduleException {
        Integer named = bounds.names().get(text.toLowerCase(Locale.ROOT));
        return named != null ? named : parseInt(text);
    }

    private static int parseInt(String text) throws InvalidScheduleException {
        int value;
        try {
            if (!text.matches("[+-]?[0-9]+")) {
                throw new NumberFormatException();
            }
            value = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            String reason = text.matches("[+-]?[0-9]+") ? "value out of range" : "invalid syntax";
            throw new InvalidScheduleException("failed to parse int from " + text + ": strconv.Atoi: parsing \"" + text + "\": " + reason);
        }
        if (value < 0) {
            throw new InvalidScheduleException("negative number (" + value + ") not allowed: " + text);
        }
        return value;
    }
}
