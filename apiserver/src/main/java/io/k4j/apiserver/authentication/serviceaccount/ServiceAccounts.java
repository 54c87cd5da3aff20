package io.k4j.apiserver.authentication.serviceaccount;

import io.k4j.apiserver.authentication.UserInfo;
import java.util.List;
import java.util.Optional;

/**
 * The mapping between service accounts and user names/groups, as upstream's {@code serviceaccount} helpers:
 * {@code system:serviceaccount:<namespace>:<name>} in the groups {@code system:serviceaccounts} and
 * {@code system:serviceaccounts:<namespace>}. Stateless and thread-safe.
 */
public final class ServiceAccounts {
    public static final String USER_PREFIX = "system:serviceaccount:";
    public static final String ALL_GROUP = "system:serviceaccounts";
    public static final String GROUP_PREFIX = "system:serviceaccounts:";

    public static final String POD_NAME_EXTRA = "authentication.kubernetes.io/pod-name";
    public static final String POD_UID_EXTRA = "authentication.kubernetes.io/pod-uid";
    public static final String NODE_NAME_EXTRA = "authentication.kubernetes.io/node-name";
    public static final String NODE_UID_EXTRA = "authentication.kubernetes.io/node-uid";
    public static final String CREDENTIAL_ID_EXTRA = "authentication.kubernetes.io/credential-id";

    private ServiceAccounts() {}

    /** A namespace and a service account name. */
    public record Name(String namespace, String name) {}

    public static String username(String namespace, String name) {
        return USER_PREFIX + namespace + ":" + name;
    }

    /** The groups a service account is in, without {@link UserInfo#AUTHENTICATED_GROUP}. */
    public static List<String> groups(String namespace) {
        return List.of(ALL_GROUP, GROUP_PREFIX + namespace);
    }

    /** The namespace and name of a service-account user name, or empty for other users or malformed names. */
    public static Optional<Name> parse(String username) {
        if (!username.startsWith(USER_PREFIX)) {
            return Optional.empty();
        }
        String rest = username.substring(USER_PREFIX.length());
        int colon = rest.indexOf(':');
        if (colon <= 0 || colon == rest.length() - 1 || rest.indexOf(':', colon + 1) >= 0) {
            return Optional.empty();
        }
        return Optional.of(new Name(rest.substring(0, colon), rest.substring(colon + 1)));
    }
}
