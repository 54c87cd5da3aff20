package io.k4j.apiserver.authorization.rbac;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authentication.serviceaccount.ServiceAccounts;

/**
 * A binding's subject: {@code User}, {@code Group} or {@code ServiceAccount} (whose namespace defaults to the
 * binding's). Immutable.
 */
public record Subject(String kind, String name, String namespace) {
    public static final String USER = "User";
    public static final String GROUP = "Group";
    public static final String SERVICE_ACCOUNT = "ServiceAccount";

    public Subject {
        requireNonNull(kind, "kind is null");
        requireNonNull(name, "name is null");
        requireNonNull(namespace, "namespace is null");
    }

    static Subject fromJson(JsonNode node) {
        return new Subject(node.path("kind").asText(""), node.path("name").asText(""), node.path("namespace").asText(""));
    }

    /** Whether this subject names {@code user}, as upstream's {@code appliesToUser}. */
    public boolean appliesTo(UserInfo user, String bindingNamespace) {
        return switch (kind) {
            case USER -> user.name().equals(name);
            case GROUP -> user.groups().contains(name);
            case SERVICE_ACCOUNT -> {
                String serviceAccountNamespace = namespace.isEmpty() ? bindingNamespace : namespace;
                yield !serviceAccountNamespace.isEmpty() && user.name().equals(ServiceAccounts.username(serviceAccountNamespace, name));
            }
            default -> false;
        };
    }

    /** Upstream's description in reasons: {@code User "bob"}, {@code ServiceAccount "name/namespace"}. */
    String describe(String bindingNamespace) {
        if (kind.equals(SERVICE_ACCOUNT)) {
            String serviceAccountNamespace = namespace.isEmpty() ? bindingNamespace : namespace;
            return kind + " \"" + name + "/" + serviceAccountNamespace + "\"";
        }
        return kind + " \"" + name + "\"";
    }
}
