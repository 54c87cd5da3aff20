package io.k4j.apiserver.registry.authentication;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.api.resource.ResourceType;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authentication.token.InvalidTokenException;
import io.k4j.apiserver.authentication.token.TokenAuthentication;
import io.k4j.apiserver.authentication.token.TokenAuthenticator;
import io.k4j.apiserver.registry.generic.CreateOnlyResource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code POST /apis/authentication.k8s.io/v1/tokenreviews}: tells whether {@code spec.token} is valid for
 * {@code spec.audiences} (default: the API server's) and whose it is, as upstream: {@code status.authenticated},
 * {@code status.user}, {@code status.audiences} and, for tokens an authenticator rejected, {@code status.error}.
 * Thread-safe.
 */
public final class TokenReviewResource implements CreateOnlyResource {
    public static final ResourceType TYPE = Reviews.type("TokenReview", "tokenreviews");

    private final List<TokenAuthenticator> authenticators;
    private final List<String> apiAudiences;

    public TokenReviewResource(List<TokenAuthenticator> authenticators, List<String> apiAudiences) {
        this.authenticators = List.copyOf(requireNonNull(authenticators, "authenticators is null"));
        this.apiAudiences = List.copyOf(requireNonNull(apiAudiences, "apiAudiences is null"));
    }

    @Override
    public ResourceType type() {
        return TYPE;
    }

    @Override
    public ObjectNode create(ObjectNode body, UserInfo user, String namespace) {
        ObjectNode response = Reviews.response(body, TYPE);
        if (!response.path("metadata").path("namespace").asText("").isEmpty()) {
            throw StatusException.badRequest("namespace is not allowed on this type: " + response.path("metadata").path("namespace").asText());
        }
        String token = response.path("spec").path("token").asText("");
        if (token.isEmpty()) {
            throw StatusException.badRequest("token is required for TokenReview in authentication.k8s.io");
        }
        List<String> requestedAudiences = new ArrayList<>();
        for (JsonNode audience : response.path("spec").path("audiences")) {
            requestedAudiences.add(audience.asText());
        }
        List<String> audiences = requestedAudiences.isEmpty() ? apiAudiences : requestedAudiences;

        ObjectNode status = response.putObject("status");
        List<String> errors = new ArrayList<>();
        Optional<TokenAuthentication> result = Optional.empty();
        for (TokenAuthenticator authenticator : authenticators) {
            try {
                result = authenticator.authenticateToken(token, audiences);
            } catch (InvalidTokenException e) {
                errors.add(e.getMessage());
            }
            if (result.isPresent()) {
                break;
            }
        }
        status.put("authenticated", result.isPresent());
        if (result.isPresent()) {
            Reviews.putUser(status.putObject("user"), result.get().user());
            ArrayNode array = status.putArray("audiences");
            result.get().audiences().forEach(array::add);
        } else {
            status.putObject("user");
            if (!errors.isEmpty()) {
                status.put("error", errors.size() == 1 ? errors.get(0) : "[" + String.join(", ", errors) + "]");
            }
        }
        return response;
    }
}
