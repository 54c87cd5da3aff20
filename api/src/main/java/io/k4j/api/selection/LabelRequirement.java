package io.k4j.api.selection;

import static java.util.Objects.requireNonNull;

import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.NameValidation;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One requirement of a label selector, such as {@code tier in (web,api)}, as upstream's
 * {@code labels.Requirement}. Build it with {@link #of}, which validates it as upstream does.
 *
 * @param key the label key
 * @param operator how the label is compared
 * @param values the values, sorted and without duplicates for {@code in}/{@code notin} parsed from strings
 */
public record LabelRequirement(String key, LabelSelectorOperator operator, List<String> values) {
    public LabelRequirement {
        requireNonNull(key, "key is null");
        requireNonNull(operator, "operator is null");
        values = List.copyOf(requireNonNull(values, "values is null"));
    }

    /**
     * A validated requirement (upstream's {@code NewRequirement}).
     *
     * @throws SelectorParseException with upstream's aggregated field errors, e.g.
     *     {@code values[0][app]: Invalid value: "a b": a valid label must be …}
     */
    public static LabelRequirement of(String key, LabelSelectorOperator operator, List<String> values) {
        List<FieldError> errors = new ArrayList<>();
        String keyErrors = String.join("; ", NameValidation.isQualifiedName(key));
        if (!keyErrors.isEmpty()) {
            errors.add(FieldError.invalid("key", key, keyErrors));
        }
        switch (operator) {
            case IN, NOT_IN -> {
                if (values.isEmpty()) {
                    errors.add(FieldError.invalid("values", values, "for 'in', 'notin' operators, values set can't be empty"));
                }
            }
            case EQUALS, DOUBLE_EQUALS, NOT_EQUALS -> {
                if (values.size() != 1) {
                    errors.add(FieldError.invalid("values", values, "exact-match compatibility requires one single value"));
                }
            }
            case EXISTS, DOES_NOT_EXIST -> {
                if (!values.isEmpty()) {
                    errors.add(FieldError.invalid("values", values, "values set must be empty for exists and does not exist"));
                }
            }
            case GREATER_THAN, LESS_THAN -> {
                if (values.size() != 1) {
                    errors.add(FieldError.invalid("values", values, "for 'Gt', 'Lt' operators, exactly one value is required"));
                }
                for (int i = 0; i < values.size(); i++) {
                    if (parseInteger(values.get(i)) == null) {
                        errors.add(FieldError.invalid("values[" + i + "]", values.get(i), "for 'Gt', 'Lt' operators, the value must be an integer"));
                    }
                }
            }
        }
        for (int i = 0; i < values.size(); i++) {
            String valueErrors = String.join("; ", NameValidation.isValidLabelValue(values.get(i)));
            if (!valueErrors.isEmpty()) {
                errors.add(FieldError.invalid("values[" + i + "][" + key + "]", values.get(i), valueErrors));
            }
        }
        if (!errors.isEmpty()) {
            throw new SelectorParseException(aggregate(errors));
        }
        return new LabelRequirement(key, operator, values);
    }

    /** Whether a set of labels satisfies this requirement. */
    public boolean matches(Map<String, String> labels) {
        String value = labels.get(key);
        return switch (operator) {
            case IN, EQUALS, DOUBLE_EQUALS -> value != null && values.contains(value);
            case NOT_IN, NOT_EQUALS -> value == null || !values.contains(value);
            case EXISTS -> value != null;
            case DOES_NOT_EXIST -> value == null;
            case GREATER_THAN, LESS_THAN -> {
                Long actual = value == null ? null : parseInteger(value);
                Long bound = values.size() == 1 ? parseInteger(values.get(0)) : null;
                if (actual == null || bound == null) {
                    yield false;
                }
                yield operator == LabelSelectorOperator.GREATER_THAN ? actual > bound : actual < bound;
            }
        };
    }

    /** The requirement in selector syntax, values sorted: {@code !a}, {@code a=b}, {@code a in (x,y)}, {@code a>3}. */
    @Override
    public String toString() {
        StringBuilder builder = new StringBuilder();
        if (operator == LabelSelectorOperator.DOES_NOT_EXIST) {
            builder.append('!');
        }
        builder.append(key);
        switch (operator) {
            case EXISTS, DOES_NOT_EXIST -> {
                return builder.toString();
            }
            case EQUALS -> builder.append('=');
            case DOUBLE_EQUALS -> builder.append("==");
            case NOT_EQUALS -> builder.append("!=");
            case IN -> builder.append(" in (");
            case NOT_IN -> builder.append(" notin (");
            case GREATER_THAN -> builder.append('>');
            case LESS_THAN -> builder.append('<');
        }
        builder.append(values.size() == 1 ? values.get(0) : String.join(",", values.stream().sorted().toList()));
        if (operator == LabelSelectorOperator.IN || operator == LabelSelectorOperator.NOT_IN) {
            builder.append(')');
        }
        return builder.toString();
    }

    /** Upstream's aggregate error: one message alone, several in brackets, duplicates dropped. */
    static String aggregate(List<FieldError> errors) {
        Set<String> messages = new LinkedHashSet<>();
        for (FieldError error : errors) {
            messages.add(error.message());
        }
        return messages.size() == 1 ? messages.iterator().next() : "[" + String.join(", ", messages) + "]";
    }

    private static Long parseInteger(String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException exception) {
            return null;
        }
    }
}
