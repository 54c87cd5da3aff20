package io.k4j.apiserver.registry.authentication;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.k4j.api.resource.GroupVersionKind;
import io.k4j.api.resource.ResourceType;
import io.k4j.apiserver.authentication.UserInfo;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** What the authentication review resources share: their resource types and the UserInfo JSON. */
final class Reviews {
    static final String GROUP = "authentication.k8s.io";
    static final String VERSION = "v1";

    private Reviews() {}

    static ResourceType type(String kind, String plural) {
        // No fabric8 model module for authentication.k8s.io is on the class path; the generic resource stands in.
        return new ResourceType(new GroupVersionKind(GROUP, VERSION, kind), plural, kind.toLowerCase(), List.of(), List.of(), false,
                Set.of("create"), Set.of(), GenericKubernetesResource.class);
    }

    /** Starts the response from the request: same metadata, the served apiVersion and kind. */
    static ObjectNode response(ObjectNode body, ResourceType type) {
        ObjectNode response = body.deepCopy();
        response.put("apiVersion", type.gvk().apiVersion());
        response.put("kind", type.kind());
        if (!response.path("metadata").isObject()) {
            response.putObject("metadata");
        }
        return response;
    }

    /** {@code authentication.k8s.io/v1 UserInfo} with upstream's omitempty fields. */
    static void putUser(ObjectNode target, UserInfo user) {
        target.put("username", user.name());
        if (!user.uid().isEmpty()) {
            target.put("uid", user.uid());
        }
        if (!user.groups().isEmpty()) {
            ArrayNode groups = target.putArray("groups");
            user.groups().forEach(groups::add);
        }
        if (!user.extra().isEmpty()) {
            ObjectNode extra = target.putObject("extra");
            for (Map.Entry<String, List<String>> entry : user.extra().entrySet()) {
                ArrayNode values = extra.putArray(entry.getKey());
                entry.getValue().forEach(values::add);
            }
        }
    }
}
