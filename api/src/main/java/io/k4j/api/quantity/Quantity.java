package io.k4j.api.quantity;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.Map;

/**
 * A resource quantity ({@code 500m}, {@code 1.5Gi}, {@code 1e3}) with the exact rules of upstream's
 * {@code resource.Quantity}: parsing (including rounding up below one nano and the int64 cap), the
 * canonical form ({@code 1000m} → {@code 1}, {@code 0.1} → {@code 100m}, {@code 1024Mi} → {@code 1Gi},
 * {@code 1.5} → {@code 1500m}), keeping the original text when it is already canonical, comparison and
 * arithmetic. Quantities are equal when their values are, whatever their formats.
 *
 * <p>Immutable and thread-safe.
 */
public final class Quantity implements Comparable<Quantity> {
    /** How a quantity is written. */
    public enum Format {
        /** Powers of 1024: {@code Ki}, {@code Mi}, {@code Gi}, {@code Ti}, {@code Pi}, {@code Ei}. */
        BINARY_SI,
        /** Powers of 1000: {@code n}, {@code u}, {@code m}, {@code k}, {@code M}, {@code G}, {@code T}, {@code P}, {@code E}. */
        DECIMAL_SI,
        /** Powers of ten: {@code e3}, {@code E-6}. */
        DECIMAL_EXPONENT
    }

    /** The message of every malformed quantity. */
    public static final String FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    public static final String NUMERIC_ERROR = "unable to parse numeric part of quantity";
    public static final String SUFFIX_ERROR = "unable to parse quantity's suffix";

    public static final Quantity ZERO = new Quantity(BigDecimal.ZERO, Format.DECIMAL_SI, "0");

    private static final BigDecimal MAX_ALLOWED = BigDecimal.valueOf(Long.MAX_VALUE);
    private static final BigDecimal BINARY_THRESHOLD = BigDecimal.valueOf(1024);
    private static final int NANO_SCALE = 9;
    private static final BigInteger ONE_THOUSAND_TWENTY_FOUR = BigInteger.valueOf(1024);
    private static final Map<String, Integer> BINARY_SUFFIXES = Map.of("Ki", 10, "Mi", 20, "Gi", 30, "Ti", 40, "Pi", 50, "Ei", 60);
    private static final Map<String, Integer> DECIMAL_SUFFIXES = Map.of("n", -9, "u", -6, "m", -3, "", 0, "k", 3, "M", 6, "G", 9, "T", 12, "P", 15, "E", 18);

    private final BigDecimal value;
    private final Format format;
    /** The text to print: the original when it was canonical, else computed once. Benign race: always the same string. */
    private String text;

    private Quantity(BigDecimal value, Format format, String text) {
        this.value = value;
        this.format = format;
        this.text = text;
    }

    /** A quantity of an exact value in a format; its text is canonical. */
    public static Quantity of(BigDecimal value, Format format) {
        return new Quantity(requireNonNull(value, "value is null"), requireNonNull(format, "format is null"), null);
    }

    /** A whole number, e.g. {@code of(3, DECIMAL_SI)} is {@code 3} and {@code of(1024, BINARY_SI)} is {@code 1Ki}. */
    public static Quantity of(long value, Format format) {
        return of(BigDecimal.valueOf(value), format);
    }

    /** Thousandths, e.g. {@code ofMilli(500)} is {@code 500m}. */
    public static Quantity ofMilli(long milliValue, Format format) {
        return of(BigDecimal.valueOf(milliValue, 3), format);
    }

    /**
     * Parses a quantity as upstream does.
     *
     * @throws IllegalArgumentException with upstream's message ({@link #FORMAT_ERROR}, {@link #NUMERIC_ERROR} or
     *     {@link #SUFFIX_ERROR})
     */
    public static Quantity parse(String text) {
        if (text.isEmpty()) {
            throw new IllegalArgumentException(FORMAT_ERROR);
        }
        if (text.equals("0")) {
            return new Quantity(BigDecimal.ZERO, Format.DECIMAL_SI, text);
        }
        Parts parts = Parts.of(text);
        int base;
        int exponent;
        Format format;
        if (BINARY_SUFFIXES.containsKey(parts.suffix)) {
            base = 2;
            exponent = BINARY_SUFFIXES.get(parts.suffix);
            format = Format.BINARY_SI;
        } else if (DECIMAL_SUFFIXES.containsKey(parts.suffix)) {
            base = 10;
            exponent = DECIMAL_SUFFIXES.get(parts.suffix);
            format = Format.DECIMAL_SI;
        } else if (parts.suffix.length() > 1 && (parts.suffix.charAt(0) == 'e' || parts.suffix.charAt(0) == 'E')) {
            base = 10;
            try {
                // Upstream parses an int64 and truncates it to int32.
                exponent = (int) Long.parseLong(parts.suffix.substring(1));
            } catch (NumberFormatException exception) {
                throw new IllegalArgumentException(SUFFIX_ERROR);
            }
            format = Format.DECIMAL_EXPONENT;
        } else {
            throw new IllegalArgumentException(SUFFIX_ERROR);
        }

        Quantity fast = parseFast(text, parts, base, exponent, format);
        if (fast != null) {
            return fast;
        }
        BigDecimal amount;
        try {
            amount = new BigDecimal(parts.value);
        } catch (NumberFormatException exception) {
            throw new IllegalArgumentException(NUMERIC_ERROR);
        }
        amount = base == 10 ? amount.scaleByPowerOfTen(exponent) : amount.multiply(new BigDecimal(BigInteger.ONE.shiftLeft(exponent)));
        BigDecimal bounded = bound(amount);
        // A binary quantity below one cannot be written in binary units.
        boolean belowOne = bounded.signum() != 0 && bounded.abs().compareTo(BigDecimal.ONE) < 0;
        return new Quantity(bounded, format == Format.BINARY_SI && belowOne ? Format.DECIMAL_SI : format, null);
    }

    /** The int64 path of upstream's parser, which also decides whether the original text is kept. */
    private static Quantity parseFast(String text, Parts parts, int base, int exponent, Format format) {
        int precision;
        int scale;
        long mantissa = 1;
        if (base == 10) {
            scale = exponent;
            precision = 18 - (parts.numerator.length() + parts.denominator.length());
        } else {
            scale = 0;
            if (exponent >= 0 && parts.denominator.isEmpty()) {
                mantissa = 1L << exponent;
                precision = 15 - parts.numerator.length() - (int) ((float) exponent * 3 / 10) - 1;
            } else {
                precision = -1;
            }
        }
        if (precision < 0) {
            return null;
        }
        scale -= parts.denominator.length();
        if (scale < -NANO_SCALE) {
            return null;
        }
        String shifted = parts.numerator + parts.denominator;
        long number;
        try {
            number = Long.parseLong(shifted);
        } catch (NumberFormatException exception) {
            throw new IllegalArgumentException(NUMERIC_ERROR);
        }
        long result;
        try {
            result = Math.multiplyExact(number, mantissa);
        } catch (ArithmeticException overflow) {
            return null;
        }
        if (!parts.positive) {
            result = -result;
        }
        BigDecimal amount = BigDecimal.valueOf(result, -scale);
        boolean canonical = format == Format.BINARY_SI
                ? exponent % 10 == 0 && (number & 0x07) != 0
                : scale % 3 == 0 && !shifted.endsWith("000") && shifted.charAt(0) != '0';
        return new Quantity(amount, format, canonical ? text : null);
    }

    /** Rounds up to a whole nano (so asking for a tiny amount still gets some) and caps at the int64 maximum. */
    private static BigDecimal bound(BigDecimal amount) {
        int sign = amount.signum();
        BigDecimal magnitude = amount.abs();
        if (magnitude.signum() != 0 && magnitude.scale() > NANO_SCALE) {
            magnitude = magnitude.setScale(NANO_SCALE, RoundingMode.UP);
        }
        if (magnitude.compareTo(MAX_ALLOWED) > 0) {
            magnitude = MAX_ALLOWED;
        }
        return sign < 0 ? magnitude.negate() : magnitude;
    }

    /**
     * Reads a quantity from JSON as upstream's {@code UnmarshalJSON}: a string or a number, surrounding spaces
     * ignored; {@code null} (or a missing node) gives {@code null}.
     */
    public static Quantity fromJson(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return null;
        }
        String text = node.isTextual() ? node.textValue() : node.isNumber() ? node.decimalValue().toString() : node.toString();
        return parse(text.strip());
    }

    /** The value. */
    public BigDecimal toBigDecimal() {
        return value;
    }

    public Format format() {
        return format;
    }

    public boolean isZero() {
        return value.signum() == 0;
    }

    public int signum() {
        return value.signum();
    }

    /** The value in whole units, rounded away from zero ({@code 1500m} → 2), as upstream's {@code Value()}. */
    public long value() {
        return scaledValue(0);
    }

    /** The value in thousandths, rounded away from zero, as upstream's {@code MilliValue()}. */
    public long milliValue() {
        return scaledValue(-3);
    }

    /** The value in units of 10^scale, rounded away from zero (saturating at the int64 range). */
    public long scaledValue(int scale) {
        BigDecimal scaled = value.scaleByPowerOfTen(-scale).setScale(0, RoundingMode.UP);
        if (scaled.compareTo(MAX_ALLOWED) > 0) {
            return Long.MAX_VALUE;
        }
        if (scaled.compareTo(BigDecimal.valueOf(Long.MIN_VALUE)) < 0) {
            return Long.MIN_VALUE;
        }
        return scaled.longValueExact();
    }

    /** The sum; the format is this one's unless this is zero (as upstream's {@code Add}). */
    public Quantity add(Quantity other) {
        return new Quantity(value.add(other.value), isZero() ? other.format : format, null);
    }

    /** The difference; the format is this one's unless this is zero (as upstream's {@code Sub}). */
    public Quantity subtract(Quantity other) {
        return new Quantity(value.subtract(other.value), isZero() ? other.format : format, null);
    }

    public Quantity negate() {
        return new Quantity(value.negate(), format, null);
    }

    @Override
    public int compareTo(Quantity other) {
        return value.compareTo(other.value);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Quantity quantity && value.compareTo(quantity.value) == 0;
    }

    @Override
    public int hashCode() {
        return value.signum() == 0 ? 0 : value.stripTrailingZeros().hashCode();
    }

    /** The text upstream would serialise: the original if it was canonical, else the canonical form. */
    @Override
    public String toString() {
        String result = text;
        if (result == null) {
            result = canonical();
            text = result;
        }
        return result;
    }

    /** The canonical form, ignoring the original text. */
    public String canonical() {
        if (value.signum() == 0) {
            return "0";
        }
        Format effective = format;
        if (effective == Format.BINARY_SI) {
            boolean small = value.abs().compareTo(BINARY_THRESHOLD) < 0;
            boolean whole = value.signum() == 0 || value.stripTrailingZeros().scale() <= 0;
            if (small || !whole) {
                effective = Format.DECIMAL_SI;
            }
        }
        if (effective == Format.BINARY_SI) {
            BigInteger amount = value.toBigIntegerExact();
            int times = 0;
            BigInteger magnitude = amount.abs();
            while (magnitude.compareTo(ONE_THOUSAND_TWENTY_FOUR) >= 0 && magnitude.mod(ONE_THOUSAND_TWENTY_FOUR).signum() == 0) {
                magnitude = magnitude.divide(ONE_THOUSAND_TWENTY_FOUR);
                times++;
            }
            return (amount.signum() < 0 ? magnitude.negate() : magnitude) + binarySuffix(times * 10);
        }
        BigInteger mantissa = value.unscaledValue();
        int exponent = -value.scale();
        BigInteger magnitude = mantissa.abs();
        while (magnitude.compareTo(BigInteger.TEN) >= 0 && magnitude.mod(BigInteger.TEN).signum() == 0) {
            magnitude = magnitude.divide(BigInteger.TEN);
            exponent++;
        }
        while (exponent % 3 != 0) {
            magnitude = magnitude.multiply(BigInteger.TEN);
            exponent--;
        }
        String number = (mantissa.signum() < 0 ? magnitude.negate() : magnitude).toString();
        if (effective == Format.DECIMAL_EXPONENT) {
            return exponent == 0 ? number : number + "e" + exponent;
        }
        return number + decimalSuffix(exponent);
    }

    private static String binarySuffix(int exponent) {
        for (Map.Entry<String, Integer> entry : BINARY_SUFFIXES.entrySet()) {
            if (entry.getValue() == exponent) {
                return entry.getKey();
            }
        }
        return "";
    }

    private static String decimalSuffix(int exponent) {
        for (Map.Entry<String, Integer> entry : DECIMAL_SUFFIXES.entrySet()) {
            if (entry.getValue() == exponent) {
                return entry.getKey();
            }
        }
        // Upstream prints no suffix when none exists for the exponent; values are capped so this is rare.
        return "";
    }

    /** The pieces of a quantity's text, split as upstream's {@code parseQuantityString}. */
    private record Parts(boolean positive, String value, String numerator, String denominator, String suffix) {
        static Parts of(String text) {
            boolean positive = true;
            int position = 0;
            int end = text.length();
            if (position < end) {
                if (text.charAt(0) == '-') {
                    positive = false;
                    position++;
                } else if (text.charAt(0) == '+') {
                    position++;
                }
            }
            while (position < end && text.charAt(position) == '0') {
                position++;
            }
            if (position >= end) {
                return new Parts(positive, "0", "0", "", "");
            }
            int numeratorStart = position;
            while (position < end && isDigit(text.charAt(position))) {
                position++;
            }
            String numerator = text.substring(numeratorStart, position);
            if (position >= end) {
                return new Parts(positive, text, numerator.isEmpty() ? "0" : numerator, "", "");
            }
            if (numerator.isEmpty()) {
                numerator = "0";
            }
            String denominator = "";
            if (text.charAt(position) == '.') {
                position++;
                int denominatorStart = position;
                while (position < end && isDigit(text.charAt(position))) {
                    position++;
                }
                denominator = text.substring(denominatorStart, position);
                if (position >= end) {
                    return new Parts(positive, text, numerator, denominator, "");
                }
            }
            String value = text.substring(0, position);
            int suffixStart = position;
            while (position < end && "eEinumkKMGTP".indexOf(text.charAt(position)) >= 0) {
                position++;
            }
            if (position < end && (text.charAt(position) == '-' || text.charAt(position) == '+')) {
                position++;
            }
            while (position < end && isDigit(text.charAt(position))) {
                position++;
            }
            if (position < end) {
                throw new IllegalArgumentException(FORMAT_ERROR);
            }
            return new Parts(positive, value, numerator, denominator, text.substring(suffixStart));
        }

        private static boolean isDigit(char character) {
            return character >= '0' && character <= '9';
        }
    }
}
