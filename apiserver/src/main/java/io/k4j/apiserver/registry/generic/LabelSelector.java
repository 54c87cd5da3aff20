package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

import io.k4j.api.errors.StatusException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A parsed label selector in upstream's string syntax: {@code a=b}, {@code a==b}, {@code a!=b},
 * {@code a in (x,y)}, {@code a notin (x,y)}, {@code a} (exists) and {@code !a} (does not exist), joined by
 * commas. Immutable and thread-safe.
 */
public record LabelSelector(List<Requirement> requirements) {
    public static final LabelSelector EVERYTHING = new LabelSelector(List.of());

    public LabelSelector {
        requirements = List.copyOf(requireNonNull(requirements, "requirements is null"));
    }

    public enum Operator { EQUALS, NOT_EQUALS, IN, NOT_IN, EXISTS, DOES_NOT_EXIST }

    public record Requirement(String key, Operator operator, Set<String> values) {
        public Requirement {
            requireNonNull(key, "key is null");
            requireNonNull(operator, "operator is null");
            values = Set.copyOf(requireNonNull(values, "values is null"));
        }

        boolean matches(Map<String, String> labels) {
            String value = labels.get(key);
            return switch (operator) {
                case EQUALS, IN -> value != null && values.contains(value);
                case NOT_EQUALS, NOT_IN -> value == null || !values.contains(value);
                case EXISTS -> value != null;
                case DOES_NOT_EXIST -> value == null;
            };
        }
    }

    public boolean isEverything() {
        return requirements.isEmpty();
    }

    public boolean matches(Map<String, String> labels) {
        for (Requirement requirement : requirements) {
            if (!requirement.matches(labels)) {
                return false;
            }
        }
        return true;
    }

    /** Parses the {@code labelSelector} query parameter; a syntax error is a 400 as upstream reports it. */
    public static LabelSelector parse(String selector) {
        if (selector == null || selector.isBlank()) {
            return EVERYTHING;
        }
        List<Requirement> requirements = new ArrayList<>();
        for (String term : splitTerms(selector)) {
            requirements.add(parseTerm(term.trim(), selector));
        }
        return new LabelSelector(requirements);
    }

    /** Splits on commas outside parentheses. */
    private static List<String> splitTerms(String selector) {
        List<String> terms = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < selector.length(); i++) {
            char c = selector.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ',' && depth == 0) {
                terms.add(selector.substring(start, i));
                start = i + 1;
            }
        }
        terms.add(selector.substring(start));
        return terms;
    }

    private static Requirement parseTerm(String term, String selector) {
        if (term.isEmpty()) {
            throw invalid(selector, "found '', expected: identifier");
        }
        if (term.startsWith("!")) {
            return new Requirement(checkKey(term.substring(1).trim(), selector), Operator.DOES_NOT_EXIST, Set.of());
        }
        int notEquals = term.indexOf("!=");
        if (notEquals > 0) {
            return new Requirement(checkKey(term.substring(0, notEquals).trim(), selector), Operator.NOT_EQUALS, Set.of(checkValue(term.substring(notEquals + 2).trim(), selector)));
        }
        int doubleEquals = term.indexOf("==");
        if (doubleEquals > 0) {
            return new Requirement(checkKey(term.substring(0, doubleEquals).trim(), selector), Operator.EQUALS, Set.of(checkValue(term.substring(doubleEquals + 2).trim(), selector)));
        }
        int equals = term.indexOf('=');
        if (equals > 0) {
            return new Requirement(checkKey(term.substring(0, equals).trim(), selector), Operator.EQUALS, Set.of(checkValue(term.substring(equals + 1).trim(), selector)));
        }
        String[] words = term.split("\\s+", 2);
        if (words.length == 1) {
            return new Requirement(checkKey(words[0], selector), Operator.EXISTS, Set.of());
        }
        String rest = words[1].trim();
        Operator operator;
        if (rest.startsWith("notin")) {
            operator = Operator.NOT_IN;
            rest = rest.substring("notin".length()).trim();
        } else if (rest.startsWith("in")) {
            operator = Operator.IN;
            rest = rest.substring("in".length()).trim();
        } else {
            throw invalid(selector, "found '" + rest + "', expected: in, notin, =, ==, !=, gt, lt");
        }
        if (!rest.startsWith("(") || !rest.endsWith(")")) {
            throw invalid(selector, "found '" + rest + "', expected: '('");
        }
        Set<String> values = new LinkedHashSet<>();
        for (String value : rest.substring(1, rest.length() - 1).split(",")) {
            values.add(checkValue(value.trim(), selector));
        }
        return new Requirement(checkKey(words[0], selector), operator, values);
    }

    private static String checkKey(String key, String selector) {
        if (!LabelSyntax.isQualifiedName(key)) {
            throw StatusException.badRequest("unable to parse requirement: " + LabelSyntax.qualifiedNameMessage(key));
        }
        return key;
    }

    private static String checkValue(String value, String selector) {
        if (!LabelSyntax.isLabelValue(value)) {
            throw StatusException.badRequest("unable to parse requirement: values[0]: Invalid value: \"" + value + "\": " + LabelSyntax.LABEL_VALUE_MESSAGE);
        }
        return value;
    }

    private static StatusException invalid(String selector, String detail) {
        return StatusException.badRequest("unable to parse requirement: " + detail);
    }
}
