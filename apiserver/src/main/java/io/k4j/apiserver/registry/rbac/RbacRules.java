package io.k4j.apiserver.registry.rbac;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.generic.HumanDuration;
import io.k4j.apiserver.registry.generic.TableColumn;
import io.k4j.apiserver.registry.groups.Ages;
import io.k4j.apiserver.registry.groups.Json;
import io.k4j.apiserver.registry.groups.Validators;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * Upstream's {@code pkg/apis/rbac/validation} and rbac/v1 defaults shared by roles, cluster roles and their
 * bindings, and the tables they print. Stateless and thread-safe.
 */
public final class RbacRules {
    public static final String GROUP = "rbac.authorization.k8s.io";

    private RbacRules() {}

    /** Columns of roles and cluster roles: upstream prints them with the default table (name and creation time). */
    public static List<TableColumn> roleColumns() {
        return List.of(
                TableColumn.nameColumn(),
                new TableColumn("Created At", "date", "", "CreationTimestamp is a timestamp representing the server time when this object was created.", 0));
    }

    public static List<Object> roleRow(ObjectNode role) {
        String created = HumanDuration.parse(Json.text(role, "metadata", "creationTimestamp"))
                .map(instant -> DateTimeFormatter.ISO_INSTANT.format(instant.truncatedTo(ChronoUnit.SECONDS)))
                .orElse(null);
        List<Object> cells = new ArrayList<>();
        cells.add(Json.string(role, "metadata", "name"));
        cells.add(created);
        return cells;
    }

    /** Columns of role bindings and cluster role bindings. */
    public static List<TableColumn> bindingColumns(String kindName) {
        return List.of(
                TableColumn.nameColumn(),
                TableColumn.string("Role", "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error."),
                TableColumn.ageColumn(),
                TableColumn.wide("Users", "Users in the " + kindName),
                TableColumn.wide("Groups", "Groups in the " + kindName),
                TableColumn.wide("ServiceAccounts", "ServiceAccounts in the " + kindName));
    }

    public static List<Object> bindingRow(ObjectNode binding, Ages ages) {
        List<String> users = new ArrayList<>();
        List<String> groups = new ArrayList<>();
        List<String> serviceAccounts = new ArrayList<>();
        for (JsonNode subject : Json.elements(binding, "subjects")) {
            switch (Json.string(subject, "kind")) {
                case "User" -> users.add(Json.string(subject, "name"));
                case "Group" -> groups.add(Json.string(subject, "name"));
                case "ServiceAccount" -> serviceAccounts.add(Json.string(subject, "namespace") + ":" + Json.string(subject, "name"));
                default -> {
                }
            }
        }
        List<Object> cells = new ArrayList<>();
        cells.add(Json.string(binding, "metadata", "name"));
        cells.add(Json.string(binding, "roleRef", "kind") + "/" + Json.string(binding, "roleRef", "name"));
        cells.add(ages.since(Json.text(binding, "metadata", "creationTimestamp")));
        cells.add(String.join(", ", users));
        cells.add(String.join(", ", groups));
        cells.add(String.join(", ", serviceAccounts));
        return cells;
    }

    /** Upstream's {@code ValidatePolicyRule} for every rule. */
    public static void validateRules(FieldErrors errors, JsonNode object, boolean namespaced) {
        List<JsonNode> rules = Json.elements(object, "rules");
        for (int i = 0; i < rules.size(); i++) {
            JsonNode rule = rules.get(i);
            String path = "rules[" + i + "]";
            if (Json.size(rule, "verbs") == 0) {
                errors.add(FieldError.required(path + ".verbs", "verbs must contain at least one value"));
            }
            if (Json.size(rule, "nonResourceURLs") > 0) {
                Object urls = Json.elements(rule, "nonResourceURLs").stream().map(JsonNode::asText).toList();
                if (namespaced) {
                    errors.add(FieldError.invalid(path + ".nonResourceURLs", urls, "namespaced rules cannot apply to non-resource URLs"));
                }
                if (Json.size(rule, "apiGroups") > 0 || Json.size(rule, "resources") > 0 || Json.size(rule, "resourceNames") > 0) {
                    errors.add(FieldError.invalid(path + ".nonResourceURLs", urls, "rules cannot apply to both regular resources and non-resource URLs"));
                }
                continue;
            }
            if (Json.size(rule, "apiGroups") == 0) {
                errors.add(FieldError.required(path + ".apiGroups", "resource rules must supply at least one api group"));
            }
            if (Json.size(rule, "resources") == 0) {
                errors.add(FieldError.required(path + ".resources", "resource rules must supply at least one resource"));
            }
        }
    }

    /** rbac/v1 defaults of a binding: the role's API group and each subject's API group. */
    public static void applyBindingDefaults(ObjectNode binding) {
        ObjectNode roleRef = Json.object(binding, "roleRef");
        Json.putIfAbsent(roleRef, "apiGroup", GROUP);
        for (JsonNode subject : Json.elements(binding, "subjects")) {
            if (subject instanceof ObjectNode subjectObject && Json.string(subjectObject, "apiGroup").isEmpty()) {
                switch (Json.string(subjectObject, "kind")) {
                    case "User", "Group" -> subjectObject.put("apiGroup", GROUP);
                    case "ServiceAccount" -> subjectObject.put("apiGroup", "");
                    default -> {
                    }
                }
            }
        }
    }

    /**
     * Upstream's {@code ValidateRoleBinding}/{@code ValidateClusterRoleBinding}.
     *
     * @param allowedKinds the role kinds the binding may refer to
     * @param namespaced whether the binding is namespaced (service account subjects then default their namespace)
     */
    public static FieldErrors validateBinding(JsonNode binding, List<String> allowedKinds, boolean namespaced) {
        FieldErrors errors = new FieldErrors();
        String apiGroup = Json.string(binding, "roleRef", "apiGroup");
        if (!apiGroup.equals(GROUP)) {
            errors.add(FieldError.notSupported("roleRef.apiGroup", apiGroup, List.of(GROUP)));
        }
        String kind = Json.string(binding, "roleRef", "kind");
        if (!allowedKinds.contains(kind)) {
            errors.add(FieldError.notSupported("roleRef.kind", kind, allowedKinds));
        }
        String roleName = Json.string(binding, "roleRef", "name");
        if (roleName.isEmpty()) {
            errors.add(FieldError.required("roleRef.name", ""));
        } else {
            for (String message : Validators.pathSegmentName(roleName)) {
                errors.add(FieldError.invalid("roleRef.name", roleName, message));
            }
        }
        List<JsonNode> subjects = Json.elements(binding, "subjects");
        for (int i = 0; i < subjects.size(); i++) {
            validateSubject(errors, subjects.get(i), namespaced, "subjects[" + i + "]");
        }
        return errors;
    }

    private static void validateSubject(FieldErrors errors, JsonNode subject, boolean namespaced, String path) {
        String name = Json.string(subject, "name");
        if (name.isEmpty()) {
            errors.add(FieldError.required(path + ".name", ""));
        }
        String apiGroup = Json.string(subject, "apiGroup");
        String kind = Json.string(subject, "kind");
        switch (kind) {
            case "ServiceAccount" -> {
                if (!name.isEmpty()) {
                    for (String message : Validators.dns1123Subdomain(name)) {
                        errors.add(FieldError.invalid(path + ".name", name, message));
                    }
                }
                if (!apiGroup.isEmpty()) {
                    errors.add(FieldError.notSupported(path + ".apiGroup", apiGroup, List.of("")));
                }
                if (!namespaced && Json.string(subject, "namespace").isEmpty()) {
                    errors.add(FieldError.required(path + ".namespace", ""));
                }
            }
            case "User", "Group" -> {
                if (!apiGroup.equals(GROUP)) {
                    errors.add(FieldError.notSupported(path + ".apiGroup", apiGroup, List.of(GROUP)));
                }
            }
            default -> errors.add(FieldError.notSupported(path + ".kind", kind, List.of("ServiceAccount", "User", "Group")));
        }
    }

    /** Upstream's update rule: a binding's role cannot change (delete and recreate the binding instead). */
    public static void validateRoleRefUnchanged(FieldErrors errors, JsonNode newBinding, JsonNode oldBinding) {
        JsonNode newRef = Json.at(newBinding, "roleRef");
        JsonNode oldRef = Json.at(oldBinding, "roleRef");
        boolean same = Json.string(newRef, "apiGroup").equals(Json.string(oldRef, "apiGroup"))
                && Json.string(newRef, "kind").equals(Json.string(oldRef, "kind"))
                && Json.string(newRef, "name").equals(Json.string(oldRef, "name"));
        if (!same) {
            errors.add(FieldError.invalid("roleRef", new Validators.Literal("rbac.RoleRef{APIGroup:\"" + Json.string(newRef, "apiGroup")
                    + "\", Kind:\"" + Json.string(newRef, "kind") + "\", Name:\"" + Json.string(newRef, "name") + "\"}"), "cannot change roleRef"));
        }
    }
}
