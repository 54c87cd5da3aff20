package io.k4j.apiserver.registry.groups;

import com.fasterxml.jackson.databind.JsonNode;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.NameValidation;

/**
 * Upstream's {@code intstr.IntOrString} rules for surge, unavailability and availability fields: a non-negative
 * integer or a percent string. Stateless and thread-safe.
 */
public final class IntOrPercent {

    private IntOrPercent() {}

    /** The value as a field error prints an IntOrString: its number or its string, unquoted. */
    public static Object display(JsonNode value) {
        return new Validators.Literal(value.isTextual() ? value.asText() : value.toString());
    }

    /** Upstream's {@code ValidatePositiveIntOrPercent}. */
    public static void validatePositive(FieldErrors errors, JsonNode value, String field) {
        if (value.isTextual()) {
            for (String message : NameValidation.isValidPercent(value.asText())) {
                errors.add(FieldError.invalid(field, display(value), message));
            }
        } else if (value.isIntegralNumber()) {
            if (value.asLong() < 0) {
                errors.add(FieldError.invalid(field, value.asLong(), Validators.NEGATIVE));
            }
        } else {
            errors.add(FieldError.invalid(field, display(value), "must be an integer or percentage (e.g '5%')"));
        }
    }

    /** Upstream's {@code IsNotMoreThan100Percent}. */
    public static void validateAtMost100Percent(FieldErrors errors, JsonNode value, String field) {
        if (value.isTextual() && NameValidation.isValidPercent(value.asText()).isEmpty() && intValue(value) > 100) {
            errors.add(FieldError.invalid(field, display(value), "must not be greater than 100%"));
        }
    }

    /** The integer, or the number of a percent string (upstream's {@code getIntOrPercentValue}); 0 if neither. */
    public static long intValue(JsonNode value) {
        if (value == null || value.isMissingNode() || value.isNull()) {
            return 0;
        }
        if (value.isIntegralNumber()) {
            return value.asLong();
        }
        String text = value.asText();
        if (text.endsWith("%")) {
            text = text.substring(0, text.length() - 1);
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Upstream's {@code IntOrString.String()}: the number or the string. */
    public static String render(JsonNode value) {
        return value.isTextual() ? value.asText() : String.valueOf(value.asLong());
    }
}
