package io.k4j.api.selection;

/**
 * A label or field selector that cannot be parsed or is invalid. The message is upstream's, for example
 * {@code unable to parse requirement: found '(', expected: identifier}; the apiserver sends it in a 400.
 * Unchecked, without a stack trace: it is a user error.
 */
public final class SelectorParseException extends RuntimeException {
    public SelectorParseException(String message) {
        super(message, null, true, false);
    }
}
