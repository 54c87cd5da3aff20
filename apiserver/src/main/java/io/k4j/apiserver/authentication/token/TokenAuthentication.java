package io.k4j.apiserver.authentication.token;

import static java.util.Objects.requireNonNull;

import io.k4j.apiserver.authentication.UserInfo;
import java.util.List;

/**
 * A successfully authenticated bearer token.
 *
 * @param user who the token belongs to
 * @param audiences the audiences the token is valid for among the requested ones (as TokenReview reports them)
 */
public record TokenAuthentication(UserInfo user, List<String> audiences) {
    public TokenAuthentication {
        requireNonNull(user, "user is null");
        audiences = List.copyOf(requireNonNull(audiences, "audiences is null"));
    }
}
