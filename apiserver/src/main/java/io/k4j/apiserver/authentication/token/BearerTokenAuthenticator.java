package io.k4j.apiserver.authentication.token;

import static java.util.Objects.requireNonNull;

import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.authentication.AuthenticationRequest;
import io.k4j.apiserver.authentication.Authenticator;
import io.k4j.apiserver.authentication.UserInfo;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Reads {@code Authorization: Bearer <token>} and hands the token to a {@link TokenAuthenticator} with the API
 * server's audiences. A token the wrapped authenticator does not know yields empty (another authenticator may know
 * it); an invalid one yields 401. Thread-safe.
 */
public final class BearerTokenAuthenticator implements Authenticator {
    private final TokenAuthenticator tokenAuthenticator;
    private final List<String> apiAudiences;

    public BearerTokenAuthenticator(TokenAuthenticator tokenAuthenticator, List<String> apiAudiences) {
        this.tokenAuthenticator = requireNonNull(tokenAuthenticator, "tokenAuthenticator is null");
        this.apiAudiences = List.copyOf(requireNonNull(apiAudiences, "apiAudiences is null"));
    }

    @Override
    public Optional<UserInfo> authenticate(AuthenticationRequest request) {
        Optional<String> token = bearerToken(request);
        if (token.isEmpty()) {
            return Optional.empty();
        }
        try {
            return tokenAuthenticator.authenticateToken(token.get(), apiAudiences).map(TokenAuthentication::user);
        } catch (InvalidTokenException e) {
            throw StatusException.unauthorized();
        }
    }

    /** The token of an {@code Authorization: Bearer} header, as upstream parses it (scheme case-insensitive). */
    public static Optional<String> bearerToken(AuthenticationRequest request) {
        String header = request.header("authorization");
        if (header == null) {
            return Optional.empty();
        }
        String[] parts = header.trim().split(" ", 3);
        if (parts.length < 2 || !parts[0].toLowerCase(Locale.ROOT).equals("bearer") || parts[1].isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(parts[1]);
    }
}
