package io.k4j.api.validation;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * An accumulating list of {@link FieldError}s: validation adds every problem it finds and never stops at
 * the first one, as upstream's {@code field.ErrorList}. Not thread-safe.
 */
public final class FieldErrors {
    private final List<FieldError> errors = new ArrayList<>();

    public FieldErrors add(FieldError error) {
        errors.add(error);
        return this;
    }

    public FieldErrors addAll(FieldErrors other) {
        errors.addAll(other.errors);
        return this;
    }

    public boolean isEmpty() {
        return errors.isEmpty();
    }

    public List<FieldError> list() {
        return Collections.unmodifiableList(errors);
    }

    @Override
    public String toString() {
        return errors.toString();
    }
}
