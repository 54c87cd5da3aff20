package io.k4j.apiserver.authorization;

import java.util.List;

/**
 * Asks authorizers in order; the first that allows or denies decides, as upstream's union authorizer. When all
 * have no opinion the answer is no opinion (which callers treat as forbidden). Thread-safe when its members are.
 */
public final class UnionAuthorizer implements Authorizer {
    private final List<Authorizer> authorizers;

    public UnionAuthorizer(List<? extends Authorizer> authorizers) {
        this.authorizers = List.copyOf(authorizers);
    }

    @Override
    public AuthorizationResult authorize(AuthorizationAttributes attributes) {
        StringBuilder reasons = new StringBuilder();
        for (Authorizer authorizer : authorizers) {
            AuthorizationResult result = authorizer.authorize(attributes);
            switch (result.decision()) {
                case ALLOW, DENY -> {
                    return result;
                }
                case NO_OPINION -> {
                    if (!result.reason().isEmpty()) {
                        reasons.append(reasons.isEmpty() ? "" : ", ").append(result.reason());
                    }
                }
            }
        }
        return new AuthorizationResult(Decision.NO_OPINION, reasons.toString());
    }
}
