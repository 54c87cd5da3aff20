package io.k4j.apiserver.registry.authentication;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.registry.generic.CreateOnlyResource;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;

/**
 * {@code POST /apis/authentication.k8s.io/v1/selfsubjectreviews} ({@code kubectl auth whoami}): returns the
 * requesting user (after impersonation) in {@code status.userInfo}, with a creation timestamp as upstream.
 * Thread-safe.
 */
public final class SelfSubjectReviewResource implements CreateOnlyResource {
    public static final ResourceType TYPE = Reviews.type("SelfSubjectReview", "selfsubjectreviews");

    private final InstantSource clock;

    public SelfSubjectReviewResource(InstantSource clock) {
        this.clock = requireNonNull(clock, "clock is null");
    }

    @Override
    public ResourceType type() {
        return TYPE;
    }

    @Override
    public ObjectNode create(ObjectNode body, UserInfo user, String namespace) {
        ObjectNode response = Reviews.response(body, TYPE);
        ObjectNode metadata = response.putObject("metadata");
        metadata.put("creationTimestamp", clock.instant().truncatedTo(ChronoUnit.SECONDS).toString());
        ObjectNode status = response.putObject("status");
        Reviews.putUser(status.putObject("userInfo"), user);
        return response;
    }
}
