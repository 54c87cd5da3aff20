package io.k4j.controllers.dynamic;

import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.GroupVersionForDiscovery;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the apiserver's discovery documents into {@link ApiResource}s, as client-go's discovery client does for
 * controllers that act on every resource (garbage collector, namespace deletion, quota). Stateless.
 */
public final class ResourceDiscovery {
    private ResourceDiscovery() {}

    /** Every top-level resource of every served group version (subresources left out), preferred versions first. */
    public static List<ApiResource> all(KubernetesClient client) {
        List<ApiResource> resources = new ArrayList<>();
        addResources(resources, "", client.getApiResources("v1"), "v1");
        for (APIGroup group : client.getApiGroups().getGroups()) {
            String preferred = group.getPreferredVersion() == null ? null : group.getPreferredVersion().getGroupVersion();
            List<String> groupVersions = new ArrayList<>();
            if (preferred != null) {
                groupVersions.add(preferred);
            }
            for (GroupVersionForDiscovery version : group.getVersions()) {
                if (!version.getGroupVersion().equals(preferred)) {
                    groupVersions.add(version.getGroupVersion());
                }
            }
            for (String groupVersion : groupVersions) {
                addResources(resources, group.getName(), client.getApiResources(groupVersion), groupVersion.substring(groupVersion.indexOf('/') + 1));
            }
        }
        return List.copyOf(resources);
    }

    /** The resources of the first (preferred) version of each group in {@code all}'s result, without asking again. */
    public static List<ApiResource> preferredOf(List<ApiResource> all) {
        Map<String, String> versions = new HashMap<>();
        List<ApiResource> preferred = new ArrayList<>();
        for (ApiResource resource : all) {
            if (versions.computeIfAbsent(resource.group(), ignored -> resource.version()).equals(resource.version())) {
                preferred.add(resource);
            }
        }
        return List.copyOf(preferred);
    }

    /** The resources of the preferred version of each group only: what acts on stored objects exactly once. */
    public static List<ApiResource> preferred(KubernetesClient client) {
        List<ApiResource> resources = new ArrayList<>();
        addResources(resources, "", client.getApiResources("v1"), "v1");
        for (APIGroup group : client.getApiGroups().getGroups()) {
            Optional<String> preferred = Optional.ofNullable(group.getPreferredVersion()).map(GroupVersionForDiscovery::getGroupVersion)
                    .or(() -> group.getVersions().stream().findFirst().map(GroupVersionForDiscovery::getGroupVersion));
            if (preferred.isPresent()) {
                String groupVersion = preferred.get();
                addResources(resources, group.getName(), client.getApiResources(groupVersion), groupVersion.substring(groupVersion.indexOf('/') + 1));
            }
        }
        return List.copyOf(resources);
    }

    /** What discovery found, and the group versions it could not read (upstream's partial discovery failure). */
    public record Discovered(List<ApiResource> resources, List<String> failures) {
        public Discovered {
            resources = List.copyOf(resources);
            failures = List.copyOf(failures);
        }
    }

    /** Like {@link #preferred} but a group version that fails to answer is reported rather than failing the whole. */
    public static Discovered preferredTolerant(KubernetesClient client) {
        List<ApiResource> resources = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        List<String> groupVersions = new ArrayList<>();
        groupVersions.add("v1");
        for (APIGroup group : client.getApiGroups().getGroups()) {
            Optional.ofNullable(group.getPreferredVersion()).map(GroupVersionForDiscovery::getGroupVersion)
                    .or(() -> group.getVersions().stream().findFirst().map(GroupVersionForDiscovery::getGroupVersion))
                    .ifPresent(groupVersions::add);
        }
        for (String groupVersion : groupVersions) {
            int slash = groupVersion.indexOf('/');
            try {
                addResources(resources, slash < 0 ? "" : groupVersion.substring(0, slash), client.getApiResources(groupVersion), groupVersion.substring(slash + 1));
            } catch (RuntimeException e) {
                failures.add(groupVersion + ": " + e.getMessage());
            }
        }
        return new Discovered(resources, failures);
    }

    private static void addResources(List<ApiResource> into, String group, APIResourceList list, String version) {
        if (list == null || list.getResources() == null) {
            return;
        }
        for (APIResource resource : list.getResources()) {
            if (resource.getName().contains("/")) {
                continue;
            }
            into.add(new ApiResource(group, version, resource.getKind(), resource.getName(), Boolean.TRUE.equals(resource.getNamespaced()),
                    resource.getVerbs() == null ? List.of() : resource.getVerbs()));
        }
    }
}
