package io.k4j.api.protobuf;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;

/**
 * Go's {@code time.Duration} text, which {@code metav1.Duration} uses in JSON: {@code 1h0m0s}, {@code 1m30s},
 * {@code 1.5s}, {@code 300ms}, {@code 0s}. Stateless and thread-safe.
 */
final class GoDuration {
    private static final long MICROSECOND = 1_000L;
    private static final long MILLISECOND = 1_000_000L;
    private static final long SECOND = 1_000_000_000L;

    private GoDuration() {}

    /** The text Go's {@code Duration.String()} gives for a number of nanoseconds. */
    static String format(long nanoseconds) {
        if (nanoseconds == 0) {
            return "0s";
        }
        String sign = nanoseconds < 0 ? "-" : "";
        // the magnitude of Long.MIN_VALUE does not fit a long; BigInteger keeps the arithmetic exact
        BigInteger magnitude = BigInteger.valueOf(nanoseconds).abs();
        if (magnitude.compareTo(BigInteger.valueOf(SECOND)) < 0) {
            long value = magnitude.longValueExact();
            if (value < MICROSECOND) {
                return sign + value + "ns";
            }
            if (value < MILLISECOND) {
                return sign + fraction(value, 3) + "µs";
            }
            return sign + fraction(value, 6) + "ms";
        }
        BigInteger[] secondsAndRest = magnitude.divideAndRemainder(BigInteger.valueOf(SECOND));
        long seconds = secondsAndRest[0].longValueExact();
        long rest = secondsAndRest[1].longValueExact();
        StringBuilder text = new StringBuilder(sign);
        long hours = seconds / 3600;
        long minutes = seconds / 60 % 60;
        if (hours > 0) {
            text.append(hours).append('h');
        }
        if (hours > 0 || minutes > 0) {
            text.append(minutes).append('m');
        }
        text.append(seconds % 60);
        String digits = fractionDigits(rest, 9);
        if (!digits.isEmpty()) {
            text.append('.').append(digits);
        }
        return text.append('s').toString();
    }

    private static String fraction(long value, int precision) {
        long scale = (long) Math.pow(10, precision);
        String digits = fractionDigits(value % scale, precision);
        return (value / scale) + (digits.isEmpty() ? "" : "." + digits);
    }

    private static String fractionDigits(long value, int precision) {
        String padded = String.format("%0" + precision + "d", value);
        int end = padded.length();
        while (end > 0 && padded.charAt(end - 1) == '0') {
            end--;
        }
        return padded.substring(0, end);
    }

    /**
     * Parses Go's duration syntax, as {@code time.ParseDuration} does: an optional sign and a sequence of decimal
     * numbers with units {@code ns, us, µs, ms, s, m, h}, e.g. {@code 1h30m}, {@code 1.5s}, {@code -300ms}.
     *
     * @throws IllegalArgumentException when the text is not a Go duration or does not fit in 64 bits
     */
    static long parse(String text) {
        String rest = text;
        boolean negative = false;
        if (rest.startsWith("-") || rest.startsWith("+")) {
            negative = rest.charAt(0) == '-';
            rest = rest.substring(1);
        }
        if (rest.equals("0")) {
            return 0;
        }
        if (rest.isEmpty()) {
            throw invalid(text);
        }
        BigDecimal total = BigDecimal.ZERO;
        int position = 0;
        while (position < rest.length()) {
            int numberStart = position;
            while (position < rest.length() && (Character.isDigit(rest.charAt(position)) || rest.charAt(position) == '.')) {
                position++;
            }
            String number = rest.substring(numberStart, position);
            if (number.isEmpty() || number.equals(".") || number.indexOf('.') != number.lastIndexOf('.')) {
                throw invalid(text);
            }
            int unitStart = position;
            while (position < rest.length() && !Character.isDigit(rest.charAt(position)) && rest.charAt(position) != '.') {
                position++;
            }
            long unit = switch (rest.substring(unitStart, position)) {
                case "ns" -> 1L;
                case "us", "µs", "μs" -> MICROSECOND;
                case "ms" -> MILLISECOND;
                case "s" -> SECOND;
                case "m" -> 60 * SECOND;
                case "h" -> 3600 * SECOND;
                default -> throw invalid(text);
            };
            total = total.add(new BigDecimal(number).multiply(BigDecimal.valueOf(unit)));
        }
        BigInteger nanoseconds = total.setScale(0, RoundingMode.DOWN).toBigIntegerExact();
        if (negative) {
            nanoseconds = nanoseconds.negate();
        }
        if (nanoseconds.bitLength() > 63) {
            throw invalid(text);
        }
        return nanoseconds.longValueExact();
    }

    private static IllegalArgumentException invalid(String text) {
        return new IllegalArgumentException("time: invalid duration \"" + text + "\"");
    }
}
