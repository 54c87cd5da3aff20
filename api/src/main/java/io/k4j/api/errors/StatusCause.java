package io.k4j.api.errors;

import static java.util.Objects.requireNonNull;

/** One entry of {@code Status.details.causes}: {@code reason} is the cause type, e.g. {@code FieldValueInvalid}. */
public record StatusCause(String reason, String message, String field) {
    public StatusCause {
        requireNonNull(reason, "reason is null");
        requireNonNull(message, "message is null");
        requireNonNull(field, "field is null");
    }
}
