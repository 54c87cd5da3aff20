package io.k4j.apiserver.authorization.rbac;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * A RoleBinding or ClusterRoleBinding reduced to what authorization needs. Immutable.
 *
 * @param namespace empty for a ClusterRoleBinding
 * @param roleKind {@code Role} or {@code ClusterRole}
 */
public record Binding(String name, String namespace, String roleKind, String roleName, List<Subject> subjects) {
    public Binding {
        requireNonNull(name, "name is null");
        requireNonNull(namespace, "namespace is null");
        requireNonNull(roleKind, "roleKind is null");
        requireNonNull(roleName, "roleName is null");
        subjects = List.copyOf(requireNonNull(subjects, "subjects is null"));
    }

    static Binding fromJson(JsonNode object) {
        JsonNode metadata = object.path("metadata");
        List<Subject> subjects = new ArrayList<>();
        for (JsonNode subject : object.path("subjects")) {
            subjects.add(Subject.fromJson(subject));
        }
        JsonNode roleRef = object.path("roleRef");
        return new Binding(metadata.path("name").asText(""), metadata.path("namespace").asText(""),
                roleRef.path("kind").asText(""), roleRef.path("name").asText(""), subjects);
    }

    boolean clusterScoped() {
        return namespace.isEmpty();
    }

    /** Upstream's reason text for a rule found through this binding and subject. */
    String describe(Subject subject) {
        if (clusterScoped()) {
            return "ClusterRoleBinding \"" + name + "\" of " + roleKind + " \"" + roleName + "\" to " + subject.describe("");
        }
        return "RoleBinding \"" + name + "/" + namespace + "\" of " + roleKind + " \"" + roleName + "\" to " + subject.describe(namespace);
    }
}
