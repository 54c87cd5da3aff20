package io.k4j.api.resource;

import static java.util.Objects.requireNonNull;

/** A kind in one API group version; the core group is the empty string. */
public record GroupVersionKind(String group, String version, String kind) {
    public GroupVersionKind {
        requireNonNull(group, "group is null");
        requireNonNull(version, "version is null");
        requireNonNull(kind, "kind is null");
    }

    /** {@code v1} for the core group, {@code apps/v1} otherwise, as in an object's {@code apiVersion}. */
    public String apiVersion() {
        return group.isEmpty() ? version : group + "/" + version;
    }

    /** Parses an {@code apiVersion} and a kind. */
    public static GroupVersionKind of(String apiVersion, String kind) {
        int slash = apiVersion.indexOf('/');
        return slash < 0
                ? new GroupVersionKind("", apiVersion, kind)
                : new GroupVersionKind(apiVersion.substring(0, slash), apiVersion.substring(slash + 1), kind);
    }
}
