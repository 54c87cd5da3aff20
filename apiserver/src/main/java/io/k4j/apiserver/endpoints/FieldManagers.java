package io.k4j.apiserver.endpoints;

import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Upstream's rules for the {@code fieldManager} of a write: at most 128 bytes of printable characters, and when a
 * client gives none, the product of its User-Agent ({@code kubectl/v1.32.0 (linux/amd64) …} → {@code kubectl}).
 * Thread-safe (stateless).
 */
final class FieldManagers {
    static final int MAX_LENGTH = 128;

    private FieldManagers() {}

    static FieldErrors validate(String manager) {
        FieldErrors errors = new FieldErrors();
        if (manager.getBytes(StandardCharsets.UTF_8).length > MAX_LENGTH) {
            errors.add(FieldError.tooLong("fieldManager", manager, MAX_LENGTH));
        }
        int position = 0;
        for (int offset = 0; offset < manager.length(); ) {
            int codePoint = manager.codePointAt(offset);
            if (!isPrintable(codePoint)) {
                errors.add(FieldError.invalid("fieldManager", manager,
                        "invalid character " + String.format(Locale.ROOT, "U+%04X", codePoint) + " (at position " + position + ")"));
            }
            position += new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8).length;
            offset += Character.charCount(codePoint);
        }
        return errors;
    }

    /** The text before the first {@code /}, without unprintable characters, cut to 128 bytes. */
    static String fromUserAgent(String userAgent) {
        int slash = userAgent.indexOf('/');
        String product = slash < 0 ? userAgent : userAgent.substring(0, slash);
        StringBuilder manager = new StringBuilder();
        int bytes = 0;
        for (int offset = 0; offset < product.length(); ) {
            int codePoint = product.codePointAt(offset);
            offset += Character.charCount(codePoint);
            if (!isPrintable(codePoint)) {
                continue;
            }
            int length = new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8).length;
            if (bytes + length > MAX_LENGTH) {
                break;
            }
            manager.appendCodePoint(codePoint);
            bytes += length;
        }
        return manager.toString();
    }

    /** Go's {@code unicode.IsPrint}: letters, marks, numbers, punctuation, symbols and the ASCII space. */
    private static boolean isPrintable(int codePoint) {
        if (codePoint == ' ') {
            return true;
        }
        return switch (Character.getType(codePoint)) {
            case Character.CONTROL, Character.FORMAT, Character.SURROGATE, Character.PRIVATE_USE, Character.UNASSIGNED,
                    Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR, Character.SPACE_SEPARATOR -> false;
            default -> true;
        };
    }
}
