package io.k4j.apiserver.authentication.token;

import java.util.List;
import java.util.Optional;

/**
 * Authenticates a bearer token, as used both by requests ({@link BearerTokenAuthenticator}) and by TokenReview.
 * Implementations are thread-safe.
 */
public interface TokenAuthenticator {
    /**
     * @param token the bearer token
     * @param audiences the audiences the caller accepts; the token must be valid for at least one of them
     * @return the user when the token is of this authenticator's kind and valid; empty when it is not of its kind
     * @throws InvalidTokenException when it is of this authenticator's kind but invalid
     */
    Optional<TokenAuthentication> authenticateToken(String token, List<String> audiences);
}
