package io.k4j.apiserver.authorization;

import static java.util.Objects.requireNonNull;

import io.k4j.apiserver.authentication.UserInfo;

/**
 * The question an authorizer answers: may {@code user} perform {@code verb} on this resource or path.
 *
 * @param user who asks
 * @param verb {@code get}, {@code list}, {@code watch}, {@code create}, {@code update}, {@code patch},
 *     {@code delete}, {@code deletecollection}, {@code impersonate}, … (for non-resource requests the
 *     lower-case HTTP method: {@code get}, {@code post} …)
 * @param resourceRequest whether this is a request for an API resource (else a non-resource URL)
 * @param apiGroup the API group, empty for core
 * @param apiVersion the version
 * @param resource the resource, e.g. {@code pods}
 * @param subresource the subresource or empty
 * @param namespace the namespace or empty
 * @param name the object name or empty
 * @param path the request path (used for non-resource requests)
 */
public record AuthorizationAttributes(
        UserInfo user,
        String verb,
        boolean resourceRequest,
        String apiGroup,
        String apiVersion,
        String resource,
        String subresource,
        String namespace,
        String name,
        String path) {
    public AuthorizationAttributes {
        requireNonNull(user, "user is null");
        requireNonNull(verb, "verb is null");
        requireNonNull(apiGroup, "apiGroup is null");
        requireNonNull(apiVersion, "apiVersion is null");
        requireNonNull(resource, "resource is null");
        requireNonNull(subresource, "subresource is null");
        requireNonNull(namespace, "namespace is null");
        requireNonNull(name, "name is null");
        requireNonNull(path, "path is null");
    }
}
