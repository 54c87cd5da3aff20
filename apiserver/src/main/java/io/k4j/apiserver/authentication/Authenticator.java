package io.k4j.apiserver.authentication;

import java.util.Optional;

/**
 * One way to establish who sent a request (client certificate, bearer token, service-account token …).
 * Authenticators are tried in order; the first that recognises the credentials decides.
 * Implementations are thread-safe.
 */
public interface Authenticator {
    /**
     * @return the user when this authenticator recognises valid credentials, empty when the request carries
     *     none of the kind it handles
     * @throws io.k4j.api.errors.StatusException 401 when it carries such credentials but they are invalid
     */
    Optional<UserInfo> authenticate(AuthenticationRequest request);
}
