package io.k4j.apiserver.admission;

import io.k4j.api.resource.GroupVersionResource;

/** The resources admission plugins look at or look up, by their served identity. */
public final class Resources {
    public static final GroupVersionResource NAMESPACES = new GroupVersionResource("", "v1", "namespaces");
    public static final GroupVersionResource PODS = new GroupVersionResource("", "v1", "pods");
    public static final GroupVersionResource NODES = new GroupVersionResource("", "v1", "nodes");
    public static final GroupVersionResource SERVICE_ACCOUNTS = new GroupVersionResource("", "v1", "serviceaccounts");
    public static final GroupVersionResource LIMIT_RANGES = new GroupVersionResource("", "v1", "limitranges");
    public static final GroupVersionResource RESOURCE_QUOTAS = new GroupVersionResource("", "v1", "resourcequotas");
    public static final GroupVersionResource PRIORITY_CLASSES = new GroupVersionResource("scheduling.k8s.io", "v1", "priorityclasses");
    public static final GroupVersionResource LEASES = new GroupVersionResource("coordination.k8s.io", "v1", "leases");

    private Resources() {}

    /** Whether the request is for {@code resource}, in any version. */
    public static boolean isResource(AdmissionAttributes attributes, GroupVersionResource resource) {
        GroupVersionResource requested = attributes.type().gvr();
        return requested.group().equals(resource.group()) && requested.resource().equals(resource.resource());
    }

    /** Upstream's {@code admission.NewForbidden}: {@code <resource> "<name>" is forbidden: <reason>}. */
    public static io.k4j.api.errors.StatusException forbidden(AdmissionAttributes attributes, String reason) {
        GroupVersionResource resource = attributes.type().gvr();
        String resourceName = attributes.subresource().isEmpty() ? resource.resource() : resource.resource() + "/" + attributes.subresource();
        return io.k4j.api.errors.StatusException.forbidden(resource.group(), resourceName, attributes.name(), reason);
    }
}
