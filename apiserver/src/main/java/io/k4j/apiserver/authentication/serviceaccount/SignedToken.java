package io.k4j.apiserver.authentication.serviceaccount;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/** A signed JWT and when it expires. */
public record SignedToken(String token, Instant expiration) {
    public SignedToken {
        requireNonNull(token, "token is null");
        requireNonNull(expiration, "expiration is null");
    }
}
