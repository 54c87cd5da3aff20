package io.k4j.controllerkit.informers;

/**
 * Removes {@code object.metadata.managedFields} from the text of a watch event before it is parsed. Cutting the text
 * costs one pass over its characters; skipping the field while parsing tokenized it all, and its keys (such as
 * {@code k:{"ip":"10.42.0.7"}}) are unique to one object, so every event added new names to Jackson's shared symbol
 * table, which copies the whole table on the first new name of each parse. Strings, most of the text, are skipped by
 * {@link String#indexOf(int, int)}, which the JIT vectorizes, rather than character by character. Stateless.
 */
final class ManagedFieldsCut {
    private static final String MANAGED_FIELDS = "managedFields";
    /** Containers deeper than this are counted but their keys are not looked at: the field is at depth 3. */
    private static final int TRACKED_DEPTH = 3;

    private ManagedFieldsCut() {}

    /**
     * The event without the object's managedFields; the text itself when it has none (or is not a JSON object), so
     * that malformed input reaches the parser unchanged.
     */
    static String withoutManagedFields(String event) {
        // keys[d]: the key of the member being read in the object at depth d (1 = the event, 2 = its object, ...).
        String[] keys = new String[TRACKED_DEPTH + 1];
        boolean[] inObject = new boolean[TRACKED_DEPTH + 1];
        boolean expectingKey = false;
        int depth = 0;
        int length = event.length();
        for (int i = 0; i < length; i++) {
            char character = event.charAt(i);
            switch (character) {
                case '"' -> {
                    int end = endOfString(event, i);
                    if (end < 0) {
                        return event;
                    }
                    if (expectingKey && depth <= TRACKED_DEPTH && inObject[depth]) {
                        if (depth == TRACKED_DEPTH && isManagedFields(event, i, end)
                                && "object".equals(keys[1]) && "metadata".equals(keys[2])) {
                            return cut(event, i);
                        }
                        keys[depth] = depth < TRACKED_DEPTH ? event.substring(i + 1, end) : null;
                        expectingKey = false;
                    }
                    i = end;
                }
                case '{', '[' -> {
                    depth++;
                    if (depth <= TRACKED_DEPTH) {
                        inObject[depth] = character == '{';
                        keys[depth] = null;
                    }
                    expectingKey = character == '{';
                }
                case '}', ']' -> {
                    depth--;
                    expectingKey = false;
                }
                case ',' -> expectingKey = depth > 0 && depth <= TRACKED_DEPTH && inObject[depth];
                default -> {
                    // ':', whitespace and the characters of numbers and literals change nothing tracked.
                }
            }
        }
        return event;
    }

    private static boolean isManagedFields(String text, int quote, int endQuote) {
        return endQuote - quote - 1 == MANAGED_FIELDS.length() && text.startsWith(MANAGED_FIELDS, quote + 1);
    }

    /** The text without the member whose key starts at {@code keyStart}, and without the comma that joined it. */
    private static String cut(String text, int keyStart) {
        int colon = skipWhitespace(text, endOfString(text, keyStart) + 1);
        if (colon >= text.length() || text.charAt(colon) != ':') {
            return text;
        }
        int valueEnd = endOfValue(text, skipWhitespace(text, colon + 1));
        if (valueEnd < 0) {
            return text;
        }
        int before = keyStart - 1;
        while (before >= 0 && Character.isWhitespace(text.charAt(before))) {
            before--;
        }
        if (before >= 0 && text.charAt(before) == ',') {
            return text.substring(0, before) + text.substring(valueEnd);
        }
        int after = skipWhitespace(text, valueEnd);
        if (after < text.length() && text.charAt(after) == ',') {
            return text.substring(0, keyStart) + text.substring(after + 1);
        }
        return text.substring(0, keyStart) + text.substring(valueEnd);
    }

    /** The index just past the value starting at {@code start}, or -1 when it does not end. */
    private static int endOfValue(String text, int start) {
        if (start >= text.length()) {
            return -1;
        }
        char first = text.charAt(start);
        if (first == '"') {
            int end = endOfString(text, start);
            return end < 0 ? -1 : end + 1;
        }
        if (first != '[' && first != '{') {
            int end = start;
            while (end < text.length() && ",}] \t\r\n".indexOf(text.charAt(end)) < 0) {
                end++;
            }
            return end;
        }
        int depth = 0;
        for (int i = start; i < text.length(); i++) {
            char character = text.charAt(i);
            if (character == '"') {
                i = endOfString(text, i);
                if (i < 0) {
                    return -1;
                }
            } else if (character == '[' || character == '{') {
                depth++;
            } else if ((character == ']' || character == '}') && --depth == 0) {
                return i + 1;
            }
        }
        return -1;
    }

    /**
     * The index of the quote that closes the string opening at {@code quote}, or -1 when it does not close: the first
     * quote after it not escaped, that is not preceded by an odd run of backslashes.
     */
    private static int endOfString(String text, int quote) {
        int candidate = text.indexOf('"', quote + 1);
        while (candidate >= 0) {
            int backslash = candidate - 1;
            while (text.charAt(backslash) == '\\') {
                backslash--;
            }
            if ((candidate - 1 - backslash) % 2 == 0) {
                return candidate;
            }
            candidate = text.indexOf('"', candidate + 1);
        }
        return -1;
    }

    private static int skipWhitespace(String text, int from) {
        int i = from;
        while (i < text.length() && Character.isWhitespace(text.charAt(i))) {
            i++;
        }
        return i;
    }
}
