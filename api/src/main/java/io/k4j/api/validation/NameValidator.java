package io.k4j.api.validation;

import java.util.List;

/**
 * The rule an object name must follow, as upstream's {@code ValidateNameFunc}: most resources use DNS
 * subdomain names, some use DNS labels (Namespace, Service uses RFC 1035 labels) or path segments only
 * (RBAC roles). Returns upstream's explanations, empty when valid. Implementations are thread-safe.
 */
@FunctionalInterface
public interface NameValidator {
    /**
     * @param name the name or, when {@code prefix} is true, a {@code generateName} prefix
     * @param prefix whether characters will be appended to the name, so that a trailing '-' is allowed
     */
    List<String> validate(String name, boolean prefix);

    /** A DNS subdomain (RFC 1123): the rule of most resources. */
    NameValidator DNS_SUBDOMAIN = (name, prefix) -> NameValidation.isDns1123Subdomain(prefix ? maskTrailingDash(name) : name);

    /** A DNS label (RFC 1123), e.g. Namespace names. */
    NameValidator DNS_LABEL = (name, prefix) -> NameValidation.isDns1123Label(prefix ? maskTrailingDash(name) : name);

    /** A DNS label (RFC 1035), e.g. Service names. */
    NameValidator DNS1035_LABEL = (name, prefix) -> NameValidation.isDns1035Label(prefix ? maskTrailingDash(name) : name);

    /** Any name that can be a request path segment, e.g. RBAC roles (upstream's {@code ValidatePathSegmentName}). */
    NameValidator PATH_SEGMENT = (name, prefix) -> prefix ? NameValidation.isValidPathSegmentPrefix(name) : NameValidation.isValidPathSegmentName(name);

    /**
     * Makes a prefix ending in '-' checkable as a name, as upstream does: the last two characters become one
     * 'a' (upstream drops two characters, which we keep so that messages and limits agree).
     */
    private static String maskTrailingDash(String name) {
        if (name.length() > 1 && name.endsWith("-")) {
            return name.substring(0, name.length() - 2) + "a";
        }
        return name;
    }
}
