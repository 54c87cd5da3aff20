package io.k4j.api.validation;

import static java.util.Objects.requireNonNull;

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

    public static FieldError notFound(String field, Object badValue) {
        return new FieldError(Type.NOT_FOUND, field, badValue, "");
    }

    /**
     * The message as upstream prints it, for example
     * {@code spec.containers[0].name: Required value} or
     * {@code metadata.name: Invalid value: "A_b": a lowercase RFC 1123 subdomain must consist of …}.
     */
    public String message() {
        StringBuilder message = new StringBuilder(field).append(": ").append(type.description());
        if (type != Type.REQUIRED && type != Type.FORBIDDEN && type != Type.TOO_MANY && type != Type.INTERNAL && badValue != null) {
            message.append(": ");
            if (badValue instanceof String string) {
                message.append('"').append(string).append('"');
            } else {
                message.append(badValue);
            }
        }
        if (!detail.isEmpty()) {
            message.append(": ").append(detail);
        }
        return message.toString();
    }
}
