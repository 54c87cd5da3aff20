package io.k4j.apiserver.admission;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.GroupVersionKind;
import io.k4j.api.resource.GroupVersionResource;
import io.k4j.api.resource.ResourceType;
import io.k4j.apiserver.authentication.UserInfo;
import java.util.List;
import java.util.Set;

/** Builders for admission attributes in plugin tests. */
public final class AdmissionTesting {
    public static final UserInfo ADMIN = UserInfo.of("kubernetes-admin", List.of("system:masters", "system:authenticated"));
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private AdmissionTesting() {}

    public static ObjectNode json(String text) {
        try {
            return (ObjectNode) MAPPER.readTree(text);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException(e);
        }
    }

    public static ResourceType type(GroupVersionResource resource, String kind, boolean namespaced) {
        return new ResourceType(new GroupVersionKind(resource.group(), resource.version(), kind), resource.resource(),
                kind.toLowerCase(java.util.Locale.ROOT), List.of(), List.of(), namespaced, Set.of("create"), Set.of(), Object.class);
    }

    public static AdmissionAttributes create(GroupVersionResource resource, String kind, String namespace, ObjectNode object, UserInfo user) {
        return new AdmissionAttributes(Operation.CREATE, type(resource, kind, !namespace.isEmpty()), "", namespace,
                object.path("metadata").path("name").asText(""), object, null, user, false);
    }

    public static AdmissionAttributes createPod(String namespace, ObjectNode pod) {
        return create(Resources.PODS, "Pod", namespace, pod, ADMIN);
    }
}
