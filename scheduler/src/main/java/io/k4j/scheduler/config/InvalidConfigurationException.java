package io.k4j.scheduler.config;

import java.util.List;

/** A scheduler configuration that cannot be used; the message lists every invalid field. */
public final class InvalidConfigurationException extends RuntimeException {
    private final List<String> errors;

    public InvalidConfigurationException(List<String> errors) {
        super("invalid scheduler configuration: " + String.join("; ", errors));
        this.errors = List.copyOf(errors);
    }

    public List<String> errors() {
        return errors;
    }
}
