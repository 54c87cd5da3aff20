package io.k4j.launcher;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads duration flags in Go's {@code time.ParseDuration} syntax, as upstream's flags take them: a sequence of
 * decimal numbers with units {@code ns, us, µs, ms, s, m, h}, e.g. {@code 1h}, {@code 1h30m}, {@code 1.5s};
 * {@code 0} alone is zero. Stateless and thread-safe.
 */
final class GoDurationConverter implements ITypeConverter<Duration> {
    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d*)?|\\.\\d+)(ns|us|µs|ms|s|m|h)");
    private static final Map<String, Long> NANOSECONDS_PER_UNIT = Map.of(
            "ns", 1L, "us", 1_000L, "µs", 1_000L, "ms", 1_000_000L, "s", 1_000_000_000L, "m", 60_000_000_000L, "h", 3_600_000_000_000L);

    @Override
    public Duration convert(String text) {
        return parse(text);
    }

    static Duration parse(String text) {
        if (text.equals("0")) {
            return Duration.ZERO;
        }
        Matcher matcher = PART.matcher(text);
        BigDecimal nanoseconds = BigDecimal.ZERO;
        int position = 0;
        while (position < text.length() && matcher.find(position) && matcher.start() == position) {
            nanoseconds = nanoseconds.add(new BigDecimal(matcher.group(1)).multiply(BigDecimal.valueOf(NANOSECONDS_PER_UNIT.get(matcher.group(2)))));
            position = matcher.end();
        }
        if (text.isEmpty() || position != text.length()) {
            throw new TypeConversionException("invalid duration \"" + text + "\"");
        }
        return Duration.ofNanos(nanoseconds.longValue());
    }
}
