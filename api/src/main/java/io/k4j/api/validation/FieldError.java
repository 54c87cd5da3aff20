package io.k4j.api.validation;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.k4j.api.codec.GoStrings;
import java.util.List;

/**
 * One problem with one field, as upstream's {@code field.Error}.
 *
 * @param type what kind of problem
 * @param field the field path, for example {@code spec.containers[0].image} or {@code metadata.labels}
 * @param badValue the offending value as shown in the message, or {@code null}
 * @param detail a human readable explanation, may be empty
 */
public record FieldError(Type type, String field, Object badValue, String detail) {
    public FieldError {
        requireNonNull(type, "type is null");
        requireNonNull(field, "field is null");
        requireNonNull(detail, "detail is null");
    }

    /** Upstream's error types; {@link #causeType()} is the {@code StatusCause.reason} they map to. */
    public enum Type {
        REQUIRED("FieldValueRequired", "Required value"),
        INVALID("FieldValueInvalid", "Invalid value"),
        DUPLICATE("FieldValueDuplicate", "Duplicate value"),
        NOT_SUPPORTED("FieldValueNotSupported", "Unsupported value"),
        FORBIDDEN("FieldValueForbidden", "Forbidden"),
        TOO_LONG("FieldValueTooLong", "Too long"),
        TOO_MANY("FieldValueTooMany", "Too many"),
        NOT_FOUND("FieldValueNotFound", "Not found"),
        INTERNAL("InternalError", "Internal error"),
        UNKNOWN_FIELD("FieldValueInvalid", "unknown field");

        private final String causeType;
        private final String description;

        Type(String causeType, String description) {
            this.causeType = causeType;
            this.description = description;
        }

        public String causeType() {
            return causeType;
        }

        public String description() {
            return description;
        }
    }

    public static FieldError required(String field, String detail) {
        return new FieldError(Type.REQUIRED, field, null, detail);
    }

    public static FieldError invalid(String field, Object badValue, String detail) {
        return new FieldError(Type.INVALID, field, badValue, detail);
    }

    public static FieldError duplicate(String field, Object badValue) {
        return new FieldError(Type.DUPLICATE, field, badValue, "");
    }

    public static FieldError notSupported(String field, Object badValue, java.util.Collection<String> validValues) {
        StringBuilder detail = new StringBuilder("supported values: ");
        int index = 0;
        for (String value : validValues) {
            detail.append(index++ == 0 ? "" : ", ").append('"').append(value).append('"');
        }
        return new FieldError(Type.NOT_SUPPORTED, field, badValue, detail.toString());
    }

    public static FieldError forbidden(String field, String detail) {
        return new FieldError(Type.FORBIDDEN, field, null, detail);
    }

    public static FieldError tooLong(String field, Object badValue, int maxLength) {
        return new FieldError(Type.TOO_LONG, field, badValue, "must have at most " + maxLength + " bytes");
    }

    /** A list with too many items; {@code actualQuantity} is shown unless negative. */
    public static FieldError tooMany(String field, int actualQuantity, int maxQuantity) {
        String detail = maxQuantity >= 0 ? "must have at most " + maxQuantity + " items" : "has too many items";
        return new FieldError(Type.TOO_MANY, field, actualQuantity >= 0 ? actualQuantity : null, detail);
    }

    /** A failure that is not the user's fault. */
    public static FieldError internal(String field, String detail) {
        return new FieldError(Type.INTERNAL, field, null, detail);
    }

    public static FieldError notFound(String field, Object badValue) {
        return new FieldError(Type.NOT_FOUND, field, badValue, "");
    }

    /**
     * The message as upstream prints it, for example
     * {@code spec.containers[0].name: Required value} or
     * {@code metadata.name: Invalid value: "A_b": a lowercase RFC 1123 subdomain must consist of …}.
     */
    public String message() {
        return field + ": " + errorBody();
    }

    /**
     * The message without the field, as upstream's {@code ErrorBody()}: what {@code Status.details.causes[].message}
     * carries beside {@code field}, e.g. {@code Invalid value: -1: must be greater than or equal to 0}. kubectl prints
     * {@code <field>: <body>} from a cause, so a cause message that repeated the field would show it twice.
     */
    public String errorBody() {
        StringBuilder message = new StringBuilder(type.description());
        boolean showsValue = switch (type) {
            case REQUIRED, FORBIDDEN, TOO_LONG, INTERNAL -> false;
            case TOO_MANY -> badValue != null;
            case INVALID, DUPLICATE, NOT_SUPPORTED, NOT_FOUND, UNKNOWN_FIELD -> true;
        };
        if (showsValue) {
            message.append(": ").append(formatValue(badValue));
        }
        if (!detail.isEmpty()) {
            message.append(": ").append(detail);
        }
        return message.toString();
    }

    /**
     * A bad value as upstream's Go formatting shows it: strings quoted ({@code %q}), numbers and booleans
     * plain, a missing value as {@code null}, a list of strings as {@code []string{"a", "b"}}.
     */
    static String formatValue(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof String string) {
            return quote(string);
        }
        if (value instanceof JsonNode node) {
            if (node.isNull() || node.isMissingNode()) {
                return "null";
            }
            return node.isTextual() ? quote(node.textValue()) : node.toString();
        }
        if (value instanceof List<?> list && list.stream().allMatch(String.class::isInstance)) {
            StringBuilder builder = new StringBuilder("[]string{");
            for (int i = 0; i < list.size(); i++) {
                builder.append(i == 0 ? "" : ", ").append(quote((String) list.get(i)));
            }
            return builder.append('}').toString();
        }
        return String.valueOf(value);
    }

    static String quote(String value) {
        return GoStrings.quote(value);
    }
}
