package io.k4j.apiserver.authentication.token;

/**
 * A bearer token was recognised as one of the kind an authenticator handles but is not valid (bad signature,
 * expired, bound object gone …). The message is what a TokenReview reports in {@code status.error}; requests
 * only ever see 401 Unauthorized.
 */
public final class InvalidTokenException extends RuntimeException {
    public InvalidTokenException(String message) {
        super(message, null, false, false);
    }
}
