package io.k4j.scheduler.framework;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * A permit decision.
 *
 * @param status success to allow, {@link Code#WAIT} to wait up to {@code timeout}, else a rejection
 * @param timeout how long to wait for an allow when waiting
 */
public record PermitResult(Status status, Duration timeout) {
    public static final PermitResult ALLOW = new PermitResult(Status.SUCCESS, Duration.ZERO);

    public PermitResult {
        requireNonNull(status, "status is null");
        requireNonNull(timeout, "timeout is null");
    }
}
