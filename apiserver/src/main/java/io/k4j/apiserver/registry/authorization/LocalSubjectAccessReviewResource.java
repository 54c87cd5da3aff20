package io.k4j.apiserver.registry.authorization;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authorization.Authorizer;
import io.k4j.apiserver.registry.generic.CreateOnlyResource;

/**
 * {@code POST /apis/authorization.k8s.io/v1/namespaces/<ns>/localsubjectaccessreviews}: a SubjectAccessReview
 * limited to resources of the URL's namespace (which {@code spec.resourceAttributes.namespace} must equal), so that
 * namespace admins can check their users. Thread-safe.
 */
public final class LocalSubjectAccessReviewResource implements CreateOnlyResource {
    public static final ResourceType TYPE = AccessReviews.type("LocalSubjectAccessReview", "localsubjectaccessreviews", true);

    private final Authorizer authorizer;

    public LocalSubjectAccessReviewResource(Authorizer authorizer) {
        this.authorizer = requireNonNull(authorizer, "authorizer is null");
    }

    @Override
    public ResourceType type() {
        return TYPE;
    }

    @Override
    public ObjectNode create(ObjectNode body, UserInfo requester, String namespace) {
        if (namespace.isEmpty()) {
            throw StatusException.badRequest("namespace is required on this type: " + body.path("metadata").path("name").asText(""));
        }
        ObjectNode response = AccessReviews.response(body, TYPE);
        JsonNode spec = response.path("spec");
        FieldErrors errors = new FieldErrors();
        AccessReviews.validateAttributes(spec, errors);
        if (spec.path("user").asText("").isEmpty() && spec.path("groups").isEmpty()) {
            errors.add(FieldError.invalid("spec.user", "", "at least one of user or group must be specified"));
        }
        if (spec.path("nonResourceAttributes").isObject()) {
            errors.add(FieldError.invalid("spec.nonResourceAttributes", spec.path("nonResourceAttributes").toString(), "disallowed on this kind of request"));
        }
        AccessReviews.failIfInvalid(TYPE.kind(), errors);
        String requestedNamespace = spec.path("resourceAttributes").path("namespace").asText("");
        if (!namespace.equals(requestedNamespace)) {
            throw StatusException.badRequest("spec.resourceAttributes.namespace must match namespace: " + namespace);
        }
        AccessReviews.putStatus(response, AccessReviews.authorize(authorizer, AccessReviews.attributes(SubjectAccessReviewResource.subject(spec), spec)));
        return response;
    }
}
