package io.k4j.apiserver.filters;

import io.k4j.apiserver.authentication.AuthenticationRequest;
import io.k4j.apiserver.authentication.UserInfo;

/**
 * Handles the {@code Impersonate-User}, {@code Impersonate-Group}, {@code Impersonate-Uid} and
 * {@code Impersonate-Extra-*} headers between authentication and authorization, as upstream's impersonation
 * filter: it checks that the requester may impersonate (the {@code impersonate} verb) and returns the user to act
 * as. Implemented by the security module. Thread-safe.
 */
public interface Impersonator {
    /**
     * @param requester the authenticated user
     * @param request the request's headers and client certificates
     * @return the user the request acts as: {@code requester} when no impersonation is asked for
     * @throws io.k4j.api.errors.StatusException 403 when the requester may not impersonate, 400 on malformed headers
     */
    UserInfo impersonate(UserInfo requester, AuthenticationRequest request);
}
