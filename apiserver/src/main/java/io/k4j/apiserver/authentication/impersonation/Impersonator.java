package io.k4j.apiserver.authentication.impersonation;

import static java.util.Objects.requireNonNull;

import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authentication.serviceaccount.ServiceAccounts;
import io.k4j.apiserver.authorization.AuthorizationAttributes;
import io.k4j.apiserver.authorization.AuthorizationResult;
import io.k4j.apiserver.authorization.Authorizer;
import io.k4j.apiserver.authorization.Decision;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * User impersonation as upstream's impersonation filter: the headers {@code Impersonate-User},
 * {@code Impersonate-Group} (repeatable), {@code Impersonate-Uid} and {@code Impersonate-Extra-<key>} (key
 * percent-decoded and lower-cased) replace the requesting user, provided the requester may {@code impersonate} each
 * of them: {@code users} (or {@code serviceaccounts} in their namespace for service-account names) and
 * {@code groups} in the core group, {@code uids} and {@code userextras/<key>} in {@code authentication.k8s.io}.
 *
 * <p>The impersonated user is in {@code system:authenticated} unless it is {@code system:anonymous} or the groups say
 * {@code system:unauthenticated}; a service account without explicit groups gets its fixed groups. The HTTP layer
 * calls {@link #impersonate} after authentication and, when the user changed, drops the headers before handling the
 * request. Thread-safe.
 */
public final class Impersonator {
    public static final String USER_HEADER = "impersonate-user";
    public static final String GROUP_HEADER = "impersonate-group";
    public static final String UID_HEADER = "impersonate-uid";
    public static final String EXTRA_HEADER_PREFIX = "impersonate-extra-";

    private static final String AUTHENTICATION_GROUP = "authentication.k8s.io";

    private final Authorizer authorizer;

    public Impersonator(Authorizer authorizer) {
        this.authorizer = requireNonNull(authorizer, "authorizer is null");
    }

    /** Whether the request asks for impersonation at all (header names in lower case). */
    public static boolean requested(Map<String, List<String>> headers) {
        return headers.keySet().stream().anyMatch(name -> name.equals(USER_HEADER) || name.equals(GROUP_HEADER)
                || name.equals(UID_HEADER) || name.startsWith(EXTRA_HEADER_PREFIX));
    }

    /**
     * @param requester the authenticated user
     * @param headers the request headers, names in lower case
     * @return the requester when nothing is impersonated, else the impersonated user
     * @throws StatusException 403 when the requester may not impersonate one of the requested attributes, 500 (as
     *     upstream) when groups, uid or extras are requested without a user
     */
    public UserInfo impersonate(UserInfo requester, Map<String, List<String>> headers) {
        String requestedUser = first(headers, USER_HEADER);
        List<String> requestedGroups = headers.getOrDefault(GROUP_HEADER, List.of());
        String requestedUid = first(headers, UID_HEADER);
        Map<String, List<String>> requestedExtra = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> header : headers.entrySet()) {
            if (header.getKey().startsWith(EXTRA_HEADER_PREFIX)) {
                String key = unescape(header.getKey().substring(EXTRA_HEADER_PREFIX.length()).toLowerCase(Locale.ROOT));
                requestedExtra.computeIfAbsent(key, ignored -> new ArrayList<>()).addAll(header.getValue());
            }
        }
        boolean hasUser = requestedUser != null && !requestedUser.isEmpty();
        boolean hasUid = requestedUid != null && !requestedUid.isEmpty();
        if (!hasUser) {
            if (!requestedGroups.isEmpty() || hasUid || !requestedExtra.isEmpty()) {
                List<String> asked = new ArrayList<>();
                requestedGroups.forEach(group -> asked.add("Group " + group));
                if (hasUid) {
                    asked.add("UID " + requestedUid);
                }
                requestedExtra.forEach((key, values) -> values.forEach(value -> asked.add("UserExtra " + key + "=" + value)));
                throw StatusException.internalError("requested " + asked + " without impersonating a user");
            }
            return requester;
        }

        String username;
        List<String> groups = new ArrayList<>();
        Optional<ServiceAccounts.Name> serviceAccount = ServiceAccounts.parse(requestedUser);
        if (serviceAccount.isPresent()) {
            check(requester, "", "serviceaccounts", "", serviceAccount.get().namespace(), serviceAccount.get().name());
            username = ServiceAccounts.username(serviceAccount.get().namespace(), serviceAccount.get().name());
            if (requestedGroups.isEmpty()) {
                groups.addAll(ServiceAccounts.groups(serviceAccount.get().namespace()));
            }
        } else {
            check(requester, "", "users", "", "", requestedUser);
            username = requestedUser;
        }
        for (String group : requestedGroups) {
            check(requester, "", "groups", "", "", group);
            groups.add(group);
        }
        for (Map.Entry<String, List<String>> extra : requestedExtra.entrySet()) {
            for (String value : extra.getValue()) {
                check(requester, AUTHENTICATION_GROUP, "userextras", extra.getKey(), "", value);
            }
        }
        String uid = "";
        if (hasUid) {
            check(requester, AUTHENTICATION_GROUP, "uids", "", "", requestedUid);
            uid = requestedUid;
        }

        if (!username.equals(UserInfo.ANONYMOUS_USER)) {
            if (!groups.contains(UserInfo.AUTHENTICATED_GROUP) && !groups.contains(UserInfo.UNAUTHENTICATED_GROUP)) {
                groups.add(UserInfo.AUTHENTICATED_GROUP);
            }
        } else if (!groups.contains(UserInfo.UNAUTHENTICATED_GROUP)) {
            groups.add(UserInfo.UNAUTHENTICATED_GROUP);
        }
        return new UserInfo(username, uid, groups, requestedExtra);
    }

    private void check(UserInfo requester, String group, String resource, String subresource, String namespace, String name) {
        AuthorizationAttributes attributes = new AuthorizationAttributes(requester, "impersonate", true, group, "", resource, subresource, namespace, name, "");
        AuthorizationResult result = authorizer.authorize(attributes);
        if (result.decision() != Decision.ALLOW) {
            throw forbidden(attributes, result.reason());
        }
    }

    /** The 403 upstream writes for a denied request: {@code <resource> "<name>" is forbidden: User "u" cannot …}. */
    public static StatusException forbidden(AuthorizationAttributes attributes, String reason) {
        String message = forbiddenMessage(attributes) + (reason.isEmpty() ? "" : ": " + reason);
        if (!attributes.resourceRequest()) {
            return StatusException.forbidden("forbidden: " + message);
        }
        return StatusException.forbidden(attributes.apiGroup(), attributes.resource(), attributes.name(), message);
    }

    /** Upstream's sentence for a denied request, e.g. {@code User "bob" cannot get resource "pods" in API group "" in the namespace "x"}. */
    public static String forbiddenMessage(AuthorizationAttributes attributes) {
        String username = attributes.user().name();
        if (!attributes.resourceRequest()) {
            return "User \"" + username + "\" cannot " + attributes.verb() + " path \"" + attributes.path() + "\"";
        }
        String resource = attributes.subresource().isEmpty() ? attributes.resource() : attributes.resource() + "/" + attributes.subresource();
        if (!attributes.namespace().isEmpty()) {
            return "User \"" + username + "\" cannot " + attributes.verb() + " resource \"" + resource + "\" in API group \"" + attributes.apiGroup()
                    + "\" in the namespace \"" + attributes.namespace() + "\"";
        }
        return "User \"" + username + "\" cannot " + attributes.verb() + " resource \"" + resource + "\" in API group \"" + attributes.apiGroup()
                + "\" at the cluster scope";
    }

    private static String first(Map<String, List<String>> headers, String name) {
        List<String> values = headers.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    private static String unescape(String key) {
        try {
            // path unescaping: a '+' stays a '+'
            return URLDecoder.decode(key.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return key;
        }
    }
}
