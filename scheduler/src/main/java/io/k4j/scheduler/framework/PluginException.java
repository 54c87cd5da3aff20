package io.k4j.scheduler.framework;

import static java.util.Objects.requireNonNull;

/** Carries a non-success {@link Status} out of a plugin call whose normal result is a value (Score). */
public final class PluginException extends RuntimeException {
    private final transient Status status;

    public PluginException(Status status) {
        super(status.message(), null, false, false);
        this.status = requireNonNull(status, "status is null");
    }

    public Status status() {
        return status;
    }
}
