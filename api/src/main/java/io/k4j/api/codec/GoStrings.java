package io.k4j.api.codec;

/**
 * Go's ways of printing strings, which upstream messages are made of. Stateless and thread-safe.
 */
public final class GoStrings {
    private GoStrings() {}

    /** Go's {@code strconv.Quote}: printable characters kept, the rest escaped. */
    public static String quote(String value) {
        StringBuilder builder = new StringBuilder(value.length() + 2).append('"');
        for (int offset = 0; offset < value.length(); ) {
            int codePoint = value.codePointAt(offset);
            offset += Character.charCount(codePoint);
            switch (codePoint) {
                case '"' -> builder.append("\\\"");
                case '\\' -> builder.append("\\\\");
                case 0x07 -> builder.append("\\a");
                case '\b' -> builder.append("\\b");
                case '\f' -> builder.append("\\f");
                case '\n' -> builder.append("\\n");
                case '\r' -> builder.append("\\r");
                case '\t' -> builder.append("\\t");
                case 0x0b -> builder.append("\\v");
                default -> {
                    if (codePoint < 0x20 || codePoint == 0x7f) {
                        builder.append(String.format("\\x%02x", codePoint));
                    } else if (Character.isISOControl(codePoint) || !Character.isDefined(codePoint) || Character.getType(codePoint) == Character.SURROGATE) {
                        builder.append(codePoint > 0xFFFF ? String.format("\\U%08x", codePoint) : String.format("\\u%04x", codePoint));
                    } else {
                        builder.appendCodePoint(codePoint);
                    }
                }
            }
        }
        return builder.append('"').toString();
    }
}
