package io.k4j.apiserver.registry.authorization;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.api.resource.ResourceType;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authorization.node.NodeAuthorizer;
import io.k4j.apiserver.authorization.rbac.PolicyRule;
import io.k4j.apiserver.authorization.rbac.RbacAuthorizer;
import io.k4j.apiserver.registry.generic.CreateOnlyResource;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews} ({@code kubectl auth can-i --list}): the
 * rules that apply to the requesting user in {@code spec.namespace}, split into {@code resourceRules} and
 * {@code nonResourceRules} as upstream. For kubelets the list is marked incomplete, because the Node authorizer's
 * permissions cannot be enumerated (upstream answers the same). Thread-safe.
 */
public final class SelfSubjectRulesReviewResource implements CreateOnlyResource {
    public static final ResourceType TYPE = AccessReviews.type("SelfSubjectRulesReview", "selfsubjectrulesreviews", false);

    private final RbacAuthorizer rbac;

    public SelfSubjectRulesReviewResource(RbacAuthorizer rbac) {
        this.rbac = requireNonNull(rbac, "rbac is null");
    }

    @Override
    public ResourceType type() {
        return TYPE;
    }

    @Override
    public ObjectNode create(ObjectNode body, UserInfo user, String namespace) {
        ObjectNode response = AccessReviews.response(body, TYPE);
        String reviewNamespace = response.path("spec").path("namespace").asText("");
        if (reviewNamespace.isEmpty()) {
            throw StatusException.badRequest("no namespace on request");
        }
        List<String> errors = new ArrayList<>();
        boolean incomplete = false;
        if (NodeAuthorizer.nodeName(user).isPresent()) {
            incomplete = true;
            errors.add("node authorizer does not support user rule resolution");
        }
        RbacAuthorizer.RulesResult result = rbac.rulesFor(user, reviewNamespace);
        errors.addAll(result.errors());
        ObjectNode status = response.putObject("status");
        ArrayNode resourceRules = status.putArray("resourceRules");
        ArrayNode nonResourceRules = status.putArray("nonResourceRules");
        for (PolicyRule rule : result.rules()) {
            if (!rule.resources().isEmpty()) {
                ObjectNode resourceRule = resourceRules.addObject();
                strings(resourceRule, "verbs", rule.verbs(), true);
                strings(resourceRule, "apiGroups", rule.apiGroups(), false);
                strings(resourceRule, "resources", rule.resources(), false);
                strings(resourceRule, "resourceNames", rule.resourceNames(), false);
            }
            if (!rule.nonResourceUrls().isEmpty()) {
                ObjectNode nonResourceRule = nonResourceRules.addObject();
                strings(nonResourceRule, "verbs", rule.verbs(), true);
                strings(nonResourceRule, "nonResourceURLs", rule.nonResourceUrls(), false);
            }
        }
        status.put("incomplete", incomplete || !result.errors().isEmpty());
        if (!errors.isEmpty()) {
            status.put("evaluationError", errors.size() == 1 ? errors.get(0) : "[" + String.join(", ", errors) + "]");
        }
        return response;
    }

    private static void strings(ObjectNode target, String field, List<String> values, boolean always) {
        if (values.isEmpty() && !always) {
            return;
        }
        ArrayNode array = target.putArray(field);
        values.forEach(array::add);
    }
}
