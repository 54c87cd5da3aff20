package io.k4j.apiserver.registry.generic;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.apiserver.authentication.UserInfo;

/**
 * A resource that is never stored and only answers POST, like the review APIs (TokenReview,
 * SubjectAccessReview, SelfSubjectAccessReview, LocalSubjectAccessReview, SelfSubjectRulesReview,
 * SelfSubjectReview): the response is the request object with its {@code status} filled in. Thread-safe.
 */
public interface CreateOnlyResource {
    ResourceType type();

    /**
     * @param body the decoded request object
     * @param user the requesting user (after impersonation)
     * @param namespace the namespace of the URL, empty for cluster-scoped
     * @return the response object
     * @throws io.k4j.api.errors.StatusException on invalid input
     */
    ObjectNode create(ObjectNode body, UserInfo user, String namespace);
}
