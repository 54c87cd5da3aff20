package io.k4j.apiserver.registry.authorization;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.k4j.api.errors.StatusException;
import io.k4j.api.resource.GroupVersionKind;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authorization.AuthorizationAttributes;
import io.k4j.apiserver.authorization.AuthorizationResult;
import io.k4j.apiserver.authorization.Authorizer;
import io.k4j.apiserver.authorization.Decision;
import java.util.List;
import java.util.Set;

/** What the access review resources share: types, spec validation, attributes and the status. */
final class AccessReviews {
    static final String GROUP = "authorization.k8s.io";
    static final String VERSION = "v1";

    private AccessReviews() {}

    static ResourceType type(String kind, String plural, boolean namespaced) {
        // No fabric8 model module for authorization.k8s.io is on the class path; the generic resource stands in.
        return new ResourceType(new GroupVersionKind(GROUP, VERSION, kind), plural, kind.toLowerCase(), List.of(), List.of(), namespaced,
                Set.of("create"), Set.of(), GenericKubernetesResource.class);
    }

    static ObjectNode response(ObjectNode body, ResourceType type) {
        ObjectNode response = body.deepCopy();
        response.put("apiVersion", type.gvk().apiVersion());
        response.put("kind", type.kind());
        if (!response.path("metadata").isObject()) {
            response.putObject("metadata");
        }
        if (!response.path("spec").isObject()) {
            response.putObject("spec");
        }
        return response;
    }

    /** Adds the error upstream reports unless exactly one of resourceAttributes and nonResourceAttributes is set. */
    static void validateAttributes(JsonNode spec, FieldErrors errors) {
        boolean resource = spec.path("resourceAttributes").isObject();
        boolean nonResource = spec.path("nonResourceAttributes").isObject();
        if (resource == nonResource) {
            errors.add(FieldError.invalid("spec.resourceAttributes", null, "exactly one of nonResourceAttributes or resourceAttributes must be specified"));
        }
    }

    static AuthorizationAttributes attributes(UserInfo user, JsonNode spec) {
        JsonNode resource = spec.path("resourceAttributes");
        if (resource.isObject()) {
            return new AuthorizationAttributes(user, resource.path("verb").asText(""), true, resource.path("group").asText(""),
                    resource.path("version").asText(""), resource.path("resource").asText(""), resource.path("subresource").asText(""),
                    resource.path("namespace").asText(""), resource.path("name").asText(""), "");
        }
        JsonNode nonResource = spec.path("nonResourceAttributes");
        return new AuthorizationAttributes(user, nonResource.path("verb").asText(""), false, "", "", "", "", "", "", nonResource.path("path").asText(""));
    }

    static void putStatus(ObjectNode response, AuthorizationResult result) {
        ObjectNode status = response.putObject("status");
        status.put("allowed", result.decision() == Decision.ALLOW);
        if (result.decision() == Decision.DENY) {
            status.put("denied", true);
        }
        if (!result.reason().isEmpty()) {
            status.put("reason", result.reason());
        }
    }

    static AuthorizationResult authorize(Authorizer authorizer, AuthorizationAttributes attributes) {
        try {
            return authorizer.authorize(attributes);
        } catch (RuntimeException e) {
            if (e instanceof StatusException status) {
                return new AuthorizationResult(Decision.NO_OPINION, status.getMessage());
            }
            throw e;
        }
    }

    static void failIfInvalid(String kind, FieldErrors errors) {
        if (!errors.isEmpty()) {
            throw StatusException.invalid(GROUP, kind, "", errors);
        }
    }
}
