package io.k4j.api.resource;

import static java.util.Objects.requireNonNull;

import java.util.Set;

/**
 * One subresource of a served resource as discovery publishes it ({@code pods/log}, {@code deployments/scale}). Immutable.
 *
 * @param parent the resource the subresource belongs to
 * @param name the subresource name in URLs ({@code status}, {@code scale}, {@code log}, …)
 * @param gvk group, version and kind of the objects read and written through it; for {@code pods/eviction}
 *     that is {@code policy/v1 Eviction}, for {@code deployments/scale} {@code autoscaling/v1 Scale}
 * @param verbs the verbs discovery lists for it
 */
public record SubresourceType(GroupVersionResource parent, String name, GroupVersionKind gvk, Set<String> verbs) {
    public SubresourceType {
        requireNonNull(parent, "parent is null");
        requireNonNull(name, "name is null");
        requireNonNull(gvk, "gvk is null");
        verbs = Set.copyOf(requireNonNull(verbs, "verbs is null"));
    }

    /** The name discovery uses, e.g. {@code pods/log}. */
    public String qualifiedName() {
        return parent.resource() + "/" + name;
    }
}
