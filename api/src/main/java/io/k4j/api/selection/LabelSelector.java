package io.k4j.api.selection;

import com.fasterxml.jackson.databind.JsonNode;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.NameValidation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * A label selector, as upstream's {@code labels.Selector}: a conjunction of {@link LabelRequirement}s kept
 * sorted by key. Built from the string form of {@code ?labelSelector=} ({@link #parse}) or from a
 * {@code metav1.LabelSelector} object ({@link #fromJson}); {@link #validate} checks such an object inside a
 * resource with upstream's field paths. The selector that selects nothing (a missing
 * {@code metav1.LabelSelector}) is distinct from the empty one, which selects everything.
 *
 * <p>Immutable and thread-safe.
 */
public final class LabelSelector {
    private static final LabelSelector EVERYTHING = new LabelSelector(List.of(), false);
    private static final LabelSelector NOTHING = new LabelSelector(List.of(), true);

    private final List<LabelRequirement> requirements;
    private final boolean nothing;

    private LabelSelector(List<LabelRequirement> requirements, boolean nothing) {
        this.requirements = List.copyOf(requirements);
        this.nothing = nothing;
    }

    /** The selector that matches every object. */
    public static LabelSelector everything() {
        return EVERYTHING;
    }

    /** The selector that matches no object. */
    public static LabelSelector nothing() {
        return NOTHING;
    }

    /** A selector of requirements, sorted by key as upstream keeps them. */
    public static LabelSelector of(List<LabelRequirement> requirements) {
        if (requirements.isEmpty()) {
            return EVERYTHING;
        }
        List<LabelRequirement> sorted = new ArrayList<>(requirements);
        sorted.sort(Comparator.comparing(LabelRequirement::key));
        return new LabelSelector(sorted, false);
    }

    /** The selector matching exactly these labels ({@code SelectorFromSet}); empty matches everything. */
    public static LabelSelector ofMatchLabels(Map<String, String> labels) {
        List<LabelRequirement> requirements = new ArrayList<>(labels.size());
        for (Map.Entry<String, String> label : labels.entrySet()) {
            requirements.add(LabelRequirement.of(label.getKey(), LabelSelectorOperator.EQUALS, List.of(label.getValue())));
        }
        return of(requirements);
    }

    /**
     * Parses the string form, e.g. {@code a=b,c!=d,e in (x,y),f notin (z),g,!h,i>5}.
     *
     * @throws SelectorParseException with upstream's message
     */
    public static LabelSelector parse(String selector) {
        return of(new Parser(selector).parse());
    }

    /**
     * Converts a {@code metav1.LabelSelector} ({@code matchLabels} and {@code matchExpressions}) as upstream's
     * {@code LabelSelectorAsSelector}: a missing or {@code null} selector selects nothing, an empty one
     * everything.
     *
     * @throws SelectorParseException when a requirement is invalid, with upstream's message
     */
    public static LabelSelector fromJson(JsonNode selector) {
        if (selector == null || selector.isNull() || selector.isMissingNode()) {
            return NOTHING;
        }
        List<LabelRequirement> requirements = new ArrayList<>();
        for (Map.Entry<String, JsonNode> label : selector.path("matchLabels").properties()) {
            requirements.add(LabelRequirement.of(label.getKey(), LabelSelectorOperator.EQUALS, List.of(label.getValue().asText(""))));
        }
        for (JsonNode expression : selector.path("matchExpressions")) {
            String operatorName = expression.path("operator").asText("");
            LabelSelectorOperator operator = switch (operatorName) {
                case "In" -> LabelSelectorOperator.IN;
                case "NotIn" -> LabelSelectorOperator.NOT_IN;
                case "Exists" -> LabelSelectorOperator.EXISTS;
                case "DoesNotExist" -> LabelSelectorOperator.DOES_NOT_EXIST;
                default -> throw new SelectorParseException("\"" + operatorName + "\" is not a valid label selector operator");
            };
            List<String> values = new ArrayList<>();
            for (JsonNode value : expression.path("values")) {
                values.add(value.asText(""));
            }
            requirements.add(LabelRequirement.of(expression.path("key").asText(""), operator, values));
        }
        return of(requirements);
    }

    /**
     * Validates a {@code metav1.LabelSelector} inside an object as upstream's {@code ValidateLabelSelector},
     * e.g. {@code spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is
     * 'In' or 'NotIn'}. A missing selector is valid here; resources that require one check that themselves.
     */
    public static FieldErrors validate(JsonNode selector, String field) {
        FieldErrors errors = new FieldErrors();
        if (selector == null || selector.isNull() || selector.isMissingNode()) {
            return errors;
        }
        for (Map.Entry<String, JsonNode> label : selector.path("matchLabels").properties()) {
            for (String message : NameValidation.isQualifiedName(label.getKey())) {
                errors.add(FieldError.invalid(field + ".matchLabels", label.getKey(), message));
            }
            String value = label.getValue().asText("");
            for (String message : NameValidation.isValidLabelValue(value)) {
                errors.add(FieldError.invalid(field + ".matchLabels", value, message));
            }
        }
        int index = 0;
        for (JsonNode expression : selector.path("matchExpressions")) {
            String path = field + ".matchExpressions[" + index++ + "]";
            String operator = expression.path("operator").asText("");
            JsonNode values = expression.path("values");
            switch (operator) {
                case "In", "NotIn" -> {
                    if (values.isEmpty()) {
                        errors.add(FieldError.required(path + ".values", "must be specified when `operator` is 'In' or 'NotIn'"));
                    }
                }
                case "Exists", "DoesNotExist" -> {
                    if (!values.isEmpty()) {
                        errors.add(FieldError.forbidden(path + ".values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
                    }
                }
                default -> errors.add(FieldError.invalid(path + ".operator", operator, "not a valid selector operator"));
            }
            String key = expression.path("key").asText("");
            for (String message : NameValidation.isQualifiedName(key)) {
                errors.add(FieldError.invalid(path + ".key", key, message));
            }
            int valueIndex = 0;
            for (JsonNode valueNode : values) {
                String value = valueNode.asText("");
                for (String message : NameValidation.isValidLabelValue(value)) {
                    errors.add(FieldError.invalid(path + ".values[" + valueIndex + "]", value, message));
                }
                valueIndex++;
            }
        }
        return errors;
    }

    /** Whether a set of labels satisfies every requirement. */
    public boolean matches(Map<String, String> labels) {
        if (nothing) {
            return false;
        }
        for (LabelRequirement requirement : requirements) {
            if (!requirement.matches(labels)) {
                return false;
            }
        }
        return true;
    }

    /** Whether an object's {@code metadata.labels} (an object node, or missing) satisfy every requirement. */
    public boolean matchesLabelsNode(JsonNode labels) {
        if (nothing) {
            return false;
        }
        if (requirements.isEmpty()) {
            return true;
        }
        Map<String, String> map = new HashMap<>();
        for (Map.Entry<String, JsonNode> label : labels.properties()) {
            map.put(label.getKey(), label.getValue().asText(""));
        }
        return matches(map);
    }

    /** The requirements, sorted by key. */
    public List<LabelRequirement> requirements() {
        return requirements;
    }

    /** Whether this selector matches everything. */
    public boolean isEverything() {
        return !nothing && requirements.isEmpty();
    }

    /** Whether this selector matches nothing. */
    public boolean isNothing() {
        return nothing;
    }

    /** The value a label must have when the selector pins it with {@code =}, {@code ==} or a one-value {@code in}; lets indexes narrow a list. */
    public Optional<String> requiresExactMatch(String key) {
        for (LabelRequirement requirement : requirements) {
            if (requirement.key().equals(key)) {
                switch (requirement.operator()) {
                    case EQUALS, DOUBLE_EQUALS, IN -> {
                        if (requirement.values().size() == 1) {
                            return Optional.of(requirement.values().get(0));
                        }
                    }
                    default -> {
                    }
                }
            }
        }
        return Optional.empty();
    }

    /** The canonical string form: requirements sorted by key, joined by commas. */
    @Override
    public String toString() {
        StringBuilder builder = new StringBuilder();
        for (LabelRequirement requirement : requirements) {
            if (!builder.isEmpty()) {
                builder.append(',');
            }
            builder.append(requirement);
        }
        return builder.toString();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof LabelSelector selector && nothing == selector.nothing && requirements.equals(selector.requirements);
    }

    @Override
    public int hashCode() {
        return requirements.hashCode() * 31 + Boolean.hashCode(nothing);
    }

    private enum Token {
        ERROR, END_OF_STRING, CLOSED_PARENTHESIS, COMMA, DOES_NOT_EXIST, DOUBLE_EQUALS, EQUALS, GREATER_THAN,
        IDENTIFIER, IN, LESS_THAN, NOT_EQUALS, NOT_IN, OPEN_PARENTHESIS
    }

    private record Scanned(Token token, String literal) {}

    /** Upstream's two-phase parser: lex everything, then parse with one token of lookahead. */
    private static final class Parser {
        private final List<Scanned> items = new ArrayList<>();
        private int position;

        Parser(String selector) {
            Lexer lexer = new Lexer(selector);
            while (true) {
                Scanned scanned = lexer.next();
                items.add(scanned);
                if (scanned.token() == Token.END_OF_STRING) {
                    break;
                }
            }
        }

        List<LabelRequirement> parse() {
            List<LabelRequirement> requirements = new ArrayList<>();
            while (true) {
                Scanned next = lookahead(true);
                switch (next.token()) {
                    case IDENTIFIER, DOES_NOT_EXIST -> {
                        LabelRequirement requirement;
                        try {
                            requirement = parseRequirement();
                        } catch (SelectorParseException exception) {
                            throw new SelectorParseException("unable to parse requirement: " + exception.getMessage());
                        }
                        requirements.add(requirement);
                        Scanned separator = consume(true);
                        switch (separator.token()) {
                            case END_OF_STRING -> {
                                return requirements;
                            }
                            case COMMA -> {
                                Scanned after = lookahead(true);
                                if (after.token() != Token.IDENTIFIER && after.token() != Token.DOES_NOT_EXIST) {
                                    throw new SelectorParseException("found '" + after.literal() + "', expected: identifier after ','");
                                }
                            }
                            default -> throw new SelectorParseException("found '" + separator.literal() + "', expected: ',' or 'end of string'");
                        }
                    }
                    case END_OF_STRING -> {
                        return requirements;
                    }
                    default -> throw new SelectorParseException("found '" + next.literal() + "', expected: !, identifier, or 'end of string'");
                }
            }
        }

        private LabelRequirement parseRequirement() {
            LabelSelectorOperator operator = null;
            Scanned scanned = consume(true);
            if (scanned.token() == Token.DOES_NOT_EXIST) {
                operator = LabelSelectorOperator.DOES_NOT_EXIST;
                scanned = consume(true);
            }
            if (scanned.token() != Token.IDENTIFIER) {
                throw new SelectorParseException("found '" + scanned.literal() + "', expected: identifier");
            }
            String key = scanned.literal();
            String keyErrors = String.join("; ", NameValidation.isQualifiedName(key));
            if (!keyErrors.isEmpty()) {
                // Upstream validates the key here against an unset field path, which prints as <nil>.
                throw new SelectorParseException(FieldError.invalid("<nil>", key, keyErrors).message());
            }
            Token after = lookahead(true).token();
            if (after == Token.END_OF_STRING || after == Token.COMMA) {
                if (operator == null) {
                    operator = LabelSelectorOperator.EXISTS;
                }
            }
            if (operator == LabelSelectorOperator.EXISTS || operator == LabelSelectorOperator.DOES_NOT_EXIST) {
                return LabelRequirement.of(key, operator, List.of());
            }
            operator = parseOperator();
            List<String> values = switch (operator) {
                case IN, NOT_IN -> parseValues();
                default -> parseExactValue();
            };
            return LabelRequirement.of(key, operator, values);
        }

        private LabelSelectorOperator parseOperator() {
            Scanned scanned = consume(false);
            return switch (scanned.token()) {
                case IN -> LabelSelectorOperator.IN;
                case EQUALS -> LabelSelectorOperator.EQUALS;
                case DOUBLE_EQUALS -> LabelSelectorOperator.DOUBLE_EQUALS;
                case GREATER_THAN -> LabelSelectorOperator.GREATER_THAN;
                case LESS_THAN -> LabelSelectorOperator.LESS_THAN;
                case NOT_IN -> LabelSelectorOperator.NOT_IN;
                case NOT_EQUALS -> LabelSelectorOperator.NOT_EQUALS;
                default -> throw new SelectorParseException("found '" + scanned.literal() + "', expected: in, notin, =, ==, !=, gt, lt");
            };
        }

        private List<String> parseValues() {
            Scanned open = consume(true);
            if (open.token() != Token.OPEN_PARENTHESIS) {
                throw new SelectorParseException("found '" + open.literal() + "' expected: '('");
            }
            Scanned next = lookahead(true);
            switch (next.token()) {
                case IDENTIFIER, COMMA -> {
                    TreeSet<String> values = parseIdentifiersList();
                    if (consume(true).token() != Token.CLOSED_PARENTHESIS) {
                        // Upstream reports the token that opened the list here, not the one found.
                        throw new SelectorParseException("found '" + next.literal() + "', expected: ')'");
                    }
                    return List.copyOf(values);
                }
                case CLOSED_PARENTHESIS -> {
                    consume(true);
                    return List.of("");
                }
                default -> throw new SelectorParseException("found '" + next.literal() + "', expected: ',', ')' or identifier");
            }
        }

        private TreeSet<String> parseIdentifiersList() {
            TreeSet<String> values = new TreeSet<>();
            while (true) {
                Scanned scanned = consume(true);
                switch (scanned.token()) {
                    case IDENTIFIER -> {
                        values.add(scanned.literal());
                        Scanned next = lookahead(true);
                        switch (next.token()) {
                            case COMMA -> {
                            }
                            case CLOSED_PARENTHESIS -> {
                                return values;
                            }
                            default -> throw new SelectorParseException("found '" + next.literal() + "', expected: ',' or ')'");
                        }
                    }
                    case COMMA -> {
                        if (values.isEmpty()) {
                            values.add("");
                        }
                        Token next = lookahead(true).token();
                        if (next == Token.CLOSED_PARENTHESIS) {
                            values.add("");
                            return values;
                        }
                        if (next == Token.COMMA) {
                            consume(true);
                            values.add("");
                        }
                    }
                    default -> throw new SelectorParseException("found '" + scanned.literal() + "', expected: ',', or identifier");
                }
            }
        }

        private List<String> parseExactValue() {
            Token next = lookahead(true).token();
            if (next == Token.END_OF_STRING || next == Token.COMMA) {
                return List.of("");
            }
            Scanned scanned = consume(true);
            if (scanned.token() == Token.IDENTIFIER) {
                return List.of(scanned.literal());
            }
            throw new SelectorParseException("found '" + scanned.literal() + "', expected: identifier");
        }

        /** In a values context, the keywords {@code in} and {@code notin} are plain identifiers. */
        private Scanned lookahead(boolean values) {
            Scanned scanned = items.get(position);
            if (values && (scanned.token() == Token.IN || scanned.token() == Token.NOT_IN)) {
                return new Scanned(Token.IDENTIFIER, scanned.literal());
            }
            return scanned;
        }

        private Scanned consume(boolean values) {
            Scanned scanned = lookahead(values);
            if (position < items.size() - 1) {
                position++;
            }
            return scanned;
        }
    }

    private static final class Lexer {
        private static final Map<String, Token> SYMBOLS = Map.of(
                ")", Token.CLOSED_PARENTHESIS, ",", Token.COMMA, "!", Token.DOES_NOT_EXIST, "==", Token.DOUBLE_EQUALS,
                "=", Token.EQUALS, ">", Token.GREATER_THAN, "<", Token.LESS_THAN, "!=", Token.NOT_EQUALS, "(", Token.OPEN_PARENTHESIS);

        private final String input;
        private int position;

        Lexer(String input) {
            this.input = input;
        }

        Scanned next() {
            while (position < input.length() && isWhitespace(input.charAt(position))) {
                position++;
            }
            if (position >= input.length()) {
                return new Scanned(Token.END_OF_STRING, "");
            }
            return isSpecialSymbol(input.charAt(position)) ? scanSymbol() : scanIdentifierOrKeyword();
        }

        private Scanned scanIdentifierOrKeyword() {
            int start = position;
            while (position < input.length() && !isSpecialSymbol(input.charAt(position)) && !isWhitespace(input.charAt(position))) {
                position++;
            }
            String literal = input.substring(start, position);
            return switch (literal) {
                case "in" -> new Scanned(Token.IN, literal);
                case "notin" -> new Scanned(Token.NOT_IN, literal);
                default -> new Scanned(Token.IDENTIFIER, literal);
            };
        }

        /** The longest symbol at the position ({@code !=} rather than {@code !}). */
        private Scanned scanSymbol() {
            StringBuilder buffer = new StringBuilder();
            Scanned last = null;
            while (position < input.length() && isSpecialSymbol(input.charAt(position))) {
                buffer.append(input.charAt(position));
                Token token = SYMBOLS.get(buffer.toString());
                if (token != null) {
                    last = new Scanned(token, buffer.toString());
                } else if (last != null) {
                    break;
                }
                position++;
            }
            return last != null ? last : new Scanned(Token.ERROR, "error expected: keyword found '" + buffer + "'");
        }

        private static boolean isWhitespace(char character) {
            return character == ' ' || character == '\t' || character == '\r' || character == '\n';
        }

        private static boolean isSpecialSymbol(char character) {
            return character == '=' || character == '!' || character == '(' || character == ')' || character == ',' || character == '>' || character == '<';
        }
    }
}
