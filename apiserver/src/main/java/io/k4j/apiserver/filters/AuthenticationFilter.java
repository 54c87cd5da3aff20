package io.k4j.apiserver.filters;

import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.authentication.AuthenticationRequest;
import io.k4j.apiserver.authentication.Authenticator;
import io.k4j.apiserver.authentication.UserInfo;
import java.util.List;
import java.util.Optional;

/**
 * Establishes who sent a request: the first authenticator that recognises the credentials decides (an invalid
 * credential is a 401 even when anonymous requests are allowed); a request without credentials is anonymous
 * ({@code system:anonymous} in {@code system:unauthenticated}) when allowed, else a 401. Thread-safe.
 */
public final class AuthenticationFilter {
    public static final UserInfo ANONYMOUS = UserInfo.of(UserInfo.ANONYMOUS_USER, List.of(UserInfo.UNAUTHENTICATED_GROUP));

    private final List<Authenticator> authenticators;
    private final boolean allowAnonymous;

    public AuthenticationFilter(List<Authenticator> authenticators, boolean allowAnonymous) {
        this.authenticators = List.copyOf(authenticators);
        this.allowAnonymous = allowAnonymous;
    }

    /**
     * @throws StatusException 401 Unauthorized
     */
    public UserInfo authenticate(AuthenticationRequest request) {
        for (Authenticator authenticator : authenticators) {
            Optional<UserInfo> user = authenticator.authenticate(request);
            if (user.isPresent()) {
                return user.get();
            }
        }
        if (allowAnonymous && request.header("authorization") == null) {
            return ANONYMOUS;
        }
        throw StatusException.unauthorized();
    }
}
