package io.k4j.kubelet.cri;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * Deadlines of CRI calls. {@code request} bounds every call (upstream's {@code runtimeRequestTimeout}, 2 minutes);
 * calls that wait for something by design (stop with a grace period, exec with a timeout) get their own wait on
 * top. Image pulls get {@code imagePull}, because a large image may take longer than any normal request.
 */
public record CriTimeouts(Duration request, Duration imagePull) {
    public static final CriTimeouts DEFAULT = new CriTimeouts(Duration.ofMinutes(2), Duration.ofMinutes(15));

    public CriTimeouts {
        requireNonNull(request, "request is null");
        requireNonNull(imagePull, "imagePull is null");
        if (request.isNegative() || request.isZero() || imagePull.isNegative() || imagePull.isZero()) {
            throw new IllegalArgumentException("CRI deadlines must be positive: " + request + ", " + imagePull);
        }
    }
}
