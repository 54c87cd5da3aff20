package io.k4j.apiserver.registry.authorization;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authorization.Authorizer;
import io.k4j.apiserver.registry.generic.CreateOnlyResource;

/**
 * {@code POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews} ({@code kubectl auth can-i}): may the
 * requesting user do what the spec describes. Thread-safe.
 */
public final class SelfSubjectAccessReviewResource implements CreateOnlyResource {
    public static final ResourceType TYPE = AccessReviews.type("SelfSubjectAccessReview", "selfsubjectaccessreviews", false);

    private final Authorizer authorizer;

    public SelfSubjectAccessReviewResource(Authorizer authorizer) {
        this.authorizer = requireNonNull(authorizer, "authorizer is null");
    }

    @Override
    public ResourceType type() {
        return TYPE;
    }

    @Override
    public ObjectNode create(ObjectNode body, UserInfo user, String namespace) {
        ObjectNode response = AccessReviews.response(body, TYPE);
        JsonNode spec = response.path("spec");
        FieldErrors errors = new FieldErrors();
        AccessReviews.validateAttributes(spec, errors);
        AccessReviews.failIfInvalid(TYPE.kind(), errors);
        AccessReviews.putStatus(response, AccessReviews.authorize(authorizer, AccessReviews.attributes(user, spec)));
        return response;
    }
}
