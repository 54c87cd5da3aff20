package io.k4j.apiserver.registry.authorization;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authorization.AuthorizationAttributes;
import io.k4j.apiserver.authorization.Authorizer;
import io.k4j.apiserver.registry.generic.CreateOnlyResource;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code POST /apis/authorization.k8s.io/v1/subjectaccessreviews}: asks the server's authorizer whether the user in
 * the spec ({@code user}, {@code groups}, {@code uid}, {@code extra}) may do what {@code resourceAttributes} or
 * {@code nonResourceAttributes} describe; answers in {@code status.allowed}, {@code status.denied} and
 * {@code status.reason} as upstream. Thread-safe.
 */
public final class SubjectAccessReviewResource implements CreateOnlyResource {
    public static final ResourceType TYPE = AccessReviews.type("SubjectAccessReview", "subjectaccessreviews", false);

    private final Authorizer authorizer;

    /** @param authorizer the chain the API server authorizes requests with */
    public SubjectAccessReviewResource(Authorizer authorizer) {
        this.authorizer = requireNonNull(authorizer, "authorizer is null");
    }

    @Override
    public ResourceType type() {
        return TYPE;
    }

    @Override
    public ObjectNode create(ObjectNode body, UserInfo requester, String namespace) {
        ObjectNode response = AccessReviews.response(body, TYPE);
        JsonNode spec = response.path("spec");
        FieldErrors errors = new FieldErrors();
        AccessReviews.validateAttributes(spec, errors);
        if (spec.path("user").asText("").isEmpty() && spec.path("groups").isEmpty()) {
            errors.add(FieldError.invalid("spec.user", "", "at least one of user or group must be specified"));
        }
        AccessReviews.failIfInvalid(TYPE.kind(), errors);
        AuthorizationAttributes attributes = AccessReviews.attributes(subject(spec), spec);
        AccessReviews.putStatus(response, AccessReviews.authorize(authorizer, attributes));
        return response;
    }

    /** The user a review's spec describes. */
    static UserInfo subject(JsonNode spec) {
        List<String> groups = new ArrayList<>();
        for (JsonNode group : spec.path("groups")) {
            groups.add(group.asText());
        }
        Map<String, List<String>> extra = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> fields = spec.path("extra").fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> field = fields.next();
            List<String> values = new ArrayList<>();
            field.getValue().forEach(value -> values.add(value.asText()));
            extra.put(field.getKey(), values);
        }
        return new UserInfo(spec.path("user").asText(""), spec.path("uid").asText(""), groups, extra);
    }
}
