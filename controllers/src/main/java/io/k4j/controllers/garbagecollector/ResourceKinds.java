package io.k4j.controllers.garbagecollector;

import io.k4j.controllers.dynamic.ApiResource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Maps the {@code apiVersion} and {@code kind} of an owner reference to the resource that serves it, as client-go's
 * REST mapper: the exact version when it is served, else the same kind in another served version of the group.
 * Immutable and thread-safe.
 */
public final class ResourceKinds {
    private final Map<String, ApiResource> byVersionAndKind = new HashMap<>();
    private final Map<String, ApiResource> byGroupAndKind = new HashMap<>();

    /** {@code resources} should list preferred versions first: they win the by-group lookup. */
    public ResourceKinds(List<ApiResource> resources) {
        for (ApiResource resource : resources) {
            byVersionAndKind.putIfAbsent(resource.apiVersion() + "|" + resource.kind(), resource);
            byGroupAndKind.putIfAbsent(resource.group() + "|" + resource.kind(), resource);
        }
    }

    public Optional<ApiResource> resolve(String apiVersion, String kind) {
        ApiResource exact = byVersionAndKind.get(apiVersion + "|" + kind);
        if (exact != null) {
            return Optional.of(exact);
        }
        int slash = apiVersion.indexOf('/');
        String group = slash < 0 ? "" : apiVersion.substring(0, slash);
        return Optional.ofNullable(byGroupAndKind.get(group + "|" + kind));
    }
}
