package io.k4j.apiserver.registry.groups;

import com.fasterxml.jackson.databind.JsonNode;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.NameValidation;
import java.util.List;

/**
 * Field rules shared by many resources, with upstream's messages (apimachinery's {@code validation} package and
 * {@code apivalidation}'s helpers); name syntax comes from {@link NameValidation}. Stateless and thread-safe.
 */
public final class Validators {
    public static final String NEGATIVE = "must be greater than or equal to 0";
    public static final String IMMUTABLE = "field is immutable";


    private Validators() {}

    public static List<String> dns1123Label(String value) {
        return NameValidation.isDns1123Label(value);
    }

    public static List<String> dns1123Subdomain(String value) {
        return NameValidation.isDns1123Subdomain(value);
    }

    /** Upstream's {@code IsQualifiedName}: label keys, annotation keys, provisioner names. */
    public static List<String> qualifiedName(String value) {
        return NameValidation.isQualifiedName(value);
    }

    public static List<String> labelValue(String value) {
        return NameValidation.isValidLabelValue(value);
    }

    /** Upstream's {@code path.IsValidPathSegmentName}, the name rule of RBAC objects. */
    public static List<String> pathSegmentName(String value) {
        return NameValidation.isValidPathSegmentName(value);
    }

    public static void nonNegative(FieldErrors errors, JsonNode object, String field, String... path) {
        Long value = Json.integer(object, path);
        if (value != null && value < 0) {
            errors.add(FieldError.invalid(field, value, NEGATIVE));
        }
    }

    /** Upstream's {@code ValidateImmutableField}: any semantic change is rejected, showing the new value. */
    public static void immutable(FieldErrors errors, JsonNode newValue, JsonNode oldValue, String field) {
        if (!Json.semanticEquals(newValue, oldValue)) {
            errors.add(FieldError.invalid(field, display(newValue), IMMUTABLE));
        }
    }

    /** A JSON value as a field error shows it: strings quoted, numbers and booleans plain, objects as JSON. */
    public static Object display(JsonNode value) {
        if (value == null || value.isMissingNode() || value.isNull()) {
            return new Literal("null");
        }
        if (value.isTextual()) {
            return value.asText();
        }
        if (value.isIntegralNumber()) {
            return value.asLong();
        }
        if (value.isBoolean()) {
            return value.asBoolean();
        }
        return new Literal(value.toString());
    }

    /** A value printed as is (unquoted) in a field error message. */
    public record Literal(String text) {
        @Override
        public String toString() {
            return text;
        }
    }
}
