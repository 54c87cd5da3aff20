package io.k4j.api.codec;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Explains why bytes are not valid JSON in the words of Go's {@code encoding/json} scanner ("invalid character
 * 'x' looking for beginning of value", "unexpected end of JSON input" …), so that decode errors read as
 * upstream's. It runs only after Jackson has rejected a body, so it favours being a faithful state machine over
 * being fast. Stateless and thread-safe.
 */
final class GoJsonSyntax {
    private GoJsonSyntax() {}

    private enum Context { OBJECT_KEY, OBJECT_VALUE, ARRAY_VALUE }

    private enum State {
        BEGIN_VALUE, BEGIN_VALUE_OR_EMPTY, BEGIN_STRING_OR_EMPTY, BEGIN_STRING, END_VALUE, END_TOP,
        IN_STRING, IN_STRING_ESCAPE, IN_STRING_ESCAPE_U, IN_STRING_ESCAPE_U1, IN_STRING_ESCAPE_U12, IN_STRING_ESCAPE_U123,
        NEGATIVE, ONE_TO_NINE, ZERO, DOT, DOT_DIGITS, EXPONENT, EXPONENT_SIGN, EXPONENT_DIGITS,
        T, TR, TRU, F, FA, FAL, FALS, N, NU, NUL
    }

    /** Go's error for invalid JSON, or {@code null} when Go would accept the bytes as one JSON value. */
    static String error(byte[] data) {
        Scanner scanner = new Scanner();
        for (byte value : data) {
            String error = scanner.step(value & 0xff);
            if (error != null) {
                return error;
            }
        }
        return scanner.endOfInput();
    }

    private static final class Scanner {
        private final Deque<Context> contexts = new ArrayDeque<>();
        private State state = State.BEGIN_VALUE;
        private boolean endedTop;

        String endOfInput() {
            if (endedTop) {
                return null;
            }
            String error = step(' ');
            if (error != null) {
                return error;
            }
            return endedTop ? null : "unexpected end of JSON input";
        }

        String step(int character) {
            switch (state) {
                case BEGIN_VALUE_OR_EMPTY:
                    if (isSpace(character)) {
                        return null;
                    }
                    if (character == ']') {
                        return endValue(character);
                    }
                    return beginValue(character);
                case BEGIN_VALUE:
                    return beginValue(character);
                case BEGIN_STRING_OR_EMPTY:
                    if (isSpace(character)) {
                        return null;
                    }
                    if (character == '}') {
                        contexts.pop();
                        contexts.push(Context.OBJECT_VALUE);
                        return endValue(character);
                    }
                    return beginString(character);
                case BEGIN_STRING:
                    return beginString(character);
                case END_VALUE:
                    return endValue(character);
                case END_TOP:
                    return endTop(character);
                case IN_STRING:
                    if (character == '"') {
                        state = State.END_VALUE;
                    } else if (character == '\\') {
                        state = State.IN_STRING_ESCAPE;
                    } else if (character < 0x20) {
                        return invalid(character, "in string literal");
                    }
                    return null;
                case IN_STRING_ESCAPE:
                    switch (character) {
                        case 'b', 'f', 'n', 'r', 't', '\\', '/', '"' -> state = State.IN_STRING;
                        case 'u' -> state = State.IN_STRING_ESCAPE_U;
                        default -> {
                            return invalid(character, "in string escape code");
                        }
                    }
                    return null;
                case IN_STRING_ESCAPE_U:
                    return hex(character, State.IN_STRING_ESCAPE_U1);
                case IN_STRING_ESCAPE_U1:
                    return hex(character, State.IN_STRING_ESCAPE_U12);
                case IN_STRING_ESCAPE_U12:
                    return hex(character, State.IN_STRING_ESCAPE_U123);
                case IN_STRING_ESCAPE_U123:
                    return hex(character, State.IN_STRING);
                case NEGATIVE:
                    if (character == '0') {
                        state = State.ZERO;
                        return null;
                    }
                    if (character >= '1' && character <= '9') {
                        state = State.ONE_TO_NINE;
                        return null;
                    }
                    return invalid(character, "in numeric literal");
                case ONE_TO_NINE:
                    if (isDigit(character)) {
                        return null;
                    }
                    return zero(character);
                case ZERO:
                    return zero(character);
                case DOT:
                    if (isDigit(character)) {
                        state = State.DOT_DIGITS;
                        return null;
                    }
                    return invalid(character, "after decimal point in numeric literal");
                case DOT_DIGITS:
                    if (isDigit(character)) {
                        return null;
                    }
                    if (character == 'e' || character == 'E') {
                        state = State.EXPONENT;
                        return null;
                    }
                    return endValue(character);
                case EXPONENT:
                    if (character == '+' || character == '-') {
                        state = State.EXPONENT_SIGN;
                        return null;
                    }
                    return exponentSign(character);
                case EXPONENT_SIGN:
                    return exponentSign(character);
                case EXPONENT_DIGITS:
                    if (isDigit(character)) {
                        return null;
                    }
                    return endValue(character);
                case T:
                    return literal(character, 'r', State.TR, "in literal true (expecting 'r')");
                case TR:
                    return literal(character, 'u', State.TRU, "in literal true (expecting 'u')");
                case TRU:
                    return literal(character, 'e', State.END_VALUE, "in literal true (expecting 'e')");
                case F:
                    return literal(character, 'a', State.FA, "in literal false (expecting 'a')");
                case FA:
                    return literal(character, 'l', State.FAL, "in literal false (expecting 'l')");
                case FAL:
                    return literal(character, 's', State.FALS, "in literal false (expecting 's')");
                case FALS:
                    return literal(character, 'e', State.END_VALUE, "in literal false (expecting 'e')");
                case N:
                    return literal(character, 'u', State.NU, "in literal null (expecting 'u')");
                case NU:
                    return literal(character, 'l', State.NUL, "in literal null (expecting 'l')");
                case NUL:
                    return literal(character, 'l', State.END_VALUE, "in literal null (expecting 'l')");
            }
            throw new IllegalStateException("unreachable state " + state);
        }

        private String beginValue(int character) {
            if (isSpace(character)) {
                return null;
            }
            switch (character) {
                case '{' -> {
                    contexts.push(Context.OBJECT_KEY);
                    state = State.BEGIN_STRING_OR_EMPTY;
                }
                case '[' -> {
                    contexts.push(Context.ARRAY_VALUE);
                    state = State.BEGIN_VALUE_OR_EMPTY;
                }
                case '"' -> state = State.IN_STRING;
                case '-' -> state = State.NEGATIVE;
                case '0' -> state = State.ZERO;
                case 't' -> state = State.T;
                case 'f' -> state = State.F;
                case 'n' -> state = State.N;
                default -> {
                    if (character >= '1' && character <= '9') {
                        state = State.ONE_TO_NINE;
                    } else {
                        return invalid(character, "looking for beginning of value");
                    }
                }
            }
            return null;
        }

        private String beginString(int character) {
            if (isSpace(character)) {
                return null;
            }
            if (character == '"') {
                state = State.IN_STRING;
                return null;
            }
            return invalid(character, "looking for beginning of object key string");
        }

        private String endValue(int character) {
            if (contexts.isEmpty()) {
                state = State.END_TOP;
                endedTop = true;
                return endTop(character);
            }
            if (isSpace(character)) {
                state = State.END_VALUE;
                return null;
            }
            switch (contexts.peek()) {
                case OBJECT_KEY:
                    if (character == ':') {
                        contexts.pop();
                        contexts.push(Context.OBJECT_VALUE);
                        state = State.BEGIN_VALUE;
                        return null;
                    }
                    return invalid(character, "after object key");
                case OBJECT_VALUE:
                    if (character == ',') {
                        contexts.pop();
                        contexts.push(Context.OBJECT_KEY);
                        state = State.BEGIN_STRING;
                        return null;
                    }
                    if (character == '}') {
                        contexts.pop();
                        return popped(character);
                    }
                    return invalid(character, "after object key:value pair");
                case ARRAY_VALUE:
                    if (character == ',') {
                        state = State.BEGIN_VALUE;
                        return null;
                    }
                    if (character == ']') {
                        contexts.pop();
                        return popped(character);
                    }
                    return invalid(character, "after array element");
            }
            throw new IllegalStateException("unreachable context");
        }

        private String popped(int character) {
            if (contexts.isEmpty()) {
                state = State.END_TOP;
                endedTop = true;
            } else {
                state = State.END_VALUE;
            }
            return null;
        }

        private String endTop(int character) {
            if (!isSpace(character)) {
                return invalid(character, "after top-level value");
            }
            return null;
        }

        private String zero(int character) {
            if (character == '.') {
                state = State.DOT;
                return null;
            }
            if (character == 'e' || character == 'E') {
                state = State.EXPONENT;
                return null;
            }
            return endValue(character);
        }

        private String exponentSign(int character) {
            if (isDigit(character)) {
                state = State.EXPONENT_DIGITS;
                return null;
            }
            return invalid(character, "in exponent of numeric literal");
        }

        private String hex(int character, State next) {
            if (isDigit(character) || (character >= 'a' && character <= 'f') || (character >= 'A' && character <= 'F')) {
                state = next;
                return null;
            }
            return invalid(character, "in \\u hexadecimal character escape");
        }

        private String literal(int character, char expected, State next, String context) {
            if (character == expected) {
                state = next;
                return null;
            }
            return invalid(character, context);
        }
    }

    private static boolean isSpace(int character) {
        return character <= ' ' && (character == ' ' || character == '\t' || character == '\r' || character == '\n');
    }

    private static boolean isDigit(int character) {
        return character >= '0' && character <= '9';
    }

    private static String invalid(int character, String context) {
        return "invalid character " + quoteCharacter(character) + " " + context;
    }

    /** Go's {@code quoteChar}: the byte as a Go rune literal. */
    static String quoteCharacter(int character) {
        if (character == '\'') {
            return "'\\''";
        }
        if (character == '"') {
            return "'\"'";
        }
        String quoted = GoStrings.quote(new String(Character.toChars(character)));
        return "'" + quoted.substring(1, quoted.length() - 1) + "'";
    }
}
