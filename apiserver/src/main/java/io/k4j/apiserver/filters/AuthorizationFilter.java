package io.k4j.apiserver.filters;

import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authorization.AuthorizationAttributes;
import io.k4j.apiserver.authorization.AuthorizationResult;
import io.k4j.apiserver.authorization.Authorizer;
import io.k4j.apiserver.authorization.Decision;
import io.k4j.apiserver.endpoints.RequestInfo;
import java.util.List;

/**
 * Asks the authorizers in order; the first that allows or denies decides. A denial, or no opinion from any,
 * is a 403 in upstream's words, e.g. {@code pods is forbidden: User "bob" cannot list resource "pods" in API
 * group "" in the namespace "default"}. Thread-safe.
 */
public final class AuthorizationFilter {
    private final List<Authorizer> authorizers;

    public AuthorizationFilter(List<Authorizer> authorizers) {
        this.authorizers = List.copyOf(authorizers);
    }

    public static AuthorizationAttributes attributes(UserInfo user, RequestInfo info) {
        return new AuthorizationAttributes(user, info.verb(), info.resourceRequest(), info.apiGroup(), info.apiVersion(),
                info.resource(), info.subresource(), info.namespace(), info.name(), info.path());
    }

    /**
     * @throws StatusException 403 Forbidden
     */
    public void authorize(UserInfo user, RequestInfo info) {
        AuthorizationAttributes attributes = attributes(user, info);
        String reason = "";
        for (Authorizer authorizer : authorizers) {
            AuthorizationResult result = authorizer.authorize(attributes);
            if (result.decision() == Decision.ALLOW) {
                return;
            }
            if (result.decision() == Decision.DENY) {
                reason = result.reason();
                break;
            }
            if (reason.isEmpty()) {
                reason = result.reason();
            }
        }
        throw forbidden(attributes, reason);
    }

    /** Upstream's forbidden error for the attributes, with the authorizer's reason appended when there is one. */
    public static StatusException forbidden(AuthorizationAttributes attributes, String reason) {
        String suffix = reason.isEmpty() ? "" : ": " + reason;
        String user = "User \"" + attributes.user().name() + "\"";
        if (!attributes.resourceRequest()) {
            return StatusException.forbidden("forbidden: " + user + " cannot " + attributes.verb() + " path \"" + attributes.path() + "\"" + suffix);
        }
        String resource = attributes.subresource().isEmpty() ? attributes.resource() : attributes.resource() + "/" + attributes.subresource();
        String scope = attributes.namespace().isEmpty() ? " at the cluster scope" : " in the namespace \"" + attributes.namespace() + "\"";
        String text = user + " cannot " + attributes.verb() + " resource \"" + resource + "\" in API group \"" + attributes.apiGroup() + "\"" + scope + suffix;
        return StatusException.forbidden(attributes.apiGroup(), attributes.resource(), attributes.name(), text);
    }
}
