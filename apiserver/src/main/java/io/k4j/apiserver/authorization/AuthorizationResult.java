package io.k4j.apiserver.authorization;

import static java.util.Objects.requireNonNull;

/** A decision and the reason shown to users (may be empty). */
public record AuthorizationResult(Decision decision, String reason) {
    public AuthorizationResult {
        requireNonNull(decision, "decision is null");
        requireNonNull(reason, "reason is null");
    }

    public static AuthorizationResult allow(String reason) {
        return new AuthorizationResult(Decision.ALLOW, reason);
    }

    public static AuthorizationResult noOpinion() {
        return new AuthorizationResult(Decision.NO_OPINION, "");
    }
}
