package io.k4j.apiserver.endpoints;

import static java.util.Objects.requireNonNull;

/**
 * What a request asks for, as upstream's {@code request.RequestInfo}: for resource requests the verb
 * ({@code get}, {@code list}, {@code watch}, {@code create}, {@code update}, {@code patch}, {@code delete},
 * {@code deletecollection}), group, version, resource, subresource, namespace and name; for other paths the
 * lower-case HTTP method.
 *
 * @param resourceRequest whether the path names an API resource
 * @param path the request path
 * @param verb the verb
 * @param apiPrefix {@code api} or {@code apis} for resource requests, else empty
 * @param apiGroup the group, empty for core
 * @param apiVersion the version
 * @param namespace the namespace, empty when none
 * @param resource the resource
 * @param subresource the subresource, empty when none
 * @param name the object name, empty when none
 */
public record RequestInfo(
        boolean resourceRequest,
        String path,
        String verb,
        String apiPrefix,
        String apiGroup,
        String apiVersion,
        String namespace,
        String resource,
        String subresource,
        String name) {
    public RequestInfo {
        requireNonNull(path, "path is null");
        requireNonNull(verb, "verb is null");
        requireNonNull(apiPrefix, "apiPrefix is null");
        requireNonNull(apiGroup, "apiGroup is null");
        requireNonNull(apiVersion, "apiVersion is null");
        requireNonNull(namespace, "namespace is null");
        requireNonNull(resource, "resource is null");
        requireNonNull(subresource, "subresource is null");
        requireNonNull(name, "name is null");
    }

    public static RequestInfo nonResource(String path, String verb) {
        return new RequestInfo(false, path, verb, "", "", "", "", "", "", "");
    }

    /** The scope label of metrics: {@code resource}, {@code namespace} or {@code cluster}. */
    public String scope() {
        if (!name.isEmpty()) {
            return "resource";
        }
        return namespace.isEmpty() ? "cluster" : "namespace";
    }
}
