package io.k4j.apiserver.authentication;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;

/**
 * Who made a request, as authentication established it.
 *
 * @param name the user name, e.g. {@code kubernetes-admin} or {@code system:serviceaccount:default:builder}
 * @param uid a unique id, may be empty
 * @param groups the groups, including {@code system:authenticated} for every authenticated user
 * @param extra extra attributes (e.g. {@code authentication.kubernetes.io/credential-id})
 */
public record UserInfo(String name, String uid, List<String> groups, Map<String, List<String>> extra) {
    public static final String AUTHENTICATED_GROUP = "system:authenticated";
    public static final String UNAUTHENTICATED_GROUP = "system:unauthenticated";
    public static final String MASTERS_GROUP = "system:masters";
    public static final String ANONYMOUS_USER = "system:anonymous";

    public UserInfo {
        requireNonNull(name, "name is null");
        requireNonNull(uid, "uid is null");
        groups = List.copyOf(requireNonNull(groups, "groups is null"));
        extra = Map.copyOf(requireNonNull(extra, "extra is null"));
    }

    public static UserInfo of(String name, List<String> groups) {
        return new UserInfo(name, "", groups, Map.of());
    }
}
