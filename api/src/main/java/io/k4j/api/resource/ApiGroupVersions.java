package io.k4j.api.resource;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * One API group with its served versions, preferred version first, as {@code /apis} lists it. Immutable.
 *
 * @param group the group name, empty for the core group
 * @param versions served versions, most preferred first
 */
public record ApiGroupVersions(String group, List<String> versions) {
    public ApiGroupVersions {
        requireNonNull(group, "group is null");
        versions = List.copyOf(requireNonNull(versions, "versions is null"));
        if (versions.isEmpty()) {
            throw new IllegalArgumentException("a group serves at least one version: " + group);
        }
    }

    public String preferredVersion() {
        return versions.get(0);
    }

    /** {@code apps/v1}, or {@code v1} for the core group. */
    public String groupVersion(String version) {
        return group.isEmpty() ? version : group + "/" + version;
    }
}
