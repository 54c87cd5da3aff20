package io.k4j.api.resource;

import static java.util.Objects.requireNonNull;

/** A resource (the plural in URLs) in one API group version; the core group is the empty string. */
public record GroupVersionResource(String group, String version, String resource) {
    public GroupVersionResource {
        requireNonNull(group, "group is null");
        requireNonNull(version, "version is null");
        requireNonNull(resource, "resource is null");
    }

    public String apiVersion() {
        return group.isEmpty() ? version : group + "/" + version;
    }

    /** {@code pods} for the core group, {@code deployments.apps} otherwise, as upstream names a group resource. */
    public String groupResource() {
        return group.isEmpty() ? resource : resource + "." + group;
    }
}
