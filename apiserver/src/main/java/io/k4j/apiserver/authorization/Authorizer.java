package io.k4j.apiserver.authorization;

/** Decides whether a request is allowed (RBAC, Node, …). Implementations are thread-safe. */
public interface Authorizer {
    AuthorizationResult authorize(AuthorizationAttributes attributes);
}
