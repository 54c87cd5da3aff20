package io.k4j.apiserver.authorization.rbac;

import static java.util.Objects.requireNonNull;

import io.k4j.api.resource.GroupVersionResource;
import io.k4j.apiserver.registry.generic.Registry;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Keeps the current {@link PolicySnapshot}, rebuilt from the registry's RBAC stores (served from the watch cache)
 * when it is older than {@code maxAge} or was {@linkplain #invalidate() invalidated}. The launcher calls
 * {@link #invalidate()} from a watch on the four RBAC resources so changes apply at once; the age limit bounds
 * staleness when no one does. Thread-safe: readers share an immutable snapshot, one rebuild runs at a time.
 */
public final class RbacPolicySource {
    public static final String GROUP = "rbac.authorization.k8s.io";
    public static final GroupVersionResource ROLES = new GroupVersionResource(GROUP, "v1", "roles");
    public static final GroupVersionResource ROLE_BINDINGS = new GroupVersionResource(GROUP, "v1", "rolebindings");
    public static final GroupVersionResource CLUSTER_ROLES = new GroupVersionResource(GROUP, "v1", "clusterroles");
    public static final GroupVersionResource CLUSTER_ROLE_BINDINGS = new GroupVersionResource(GROUP, "v1", "clusterrolebindings");

    private final Registry registry;
    private final Duration maxAge;
    private final InstantSource clock;
    private volatile PolicySnapshot snapshot;
    private volatile Instant builtAt = Instant.MIN;
    private final AtomicLong generation = new AtomicLong();
    private volatile long builtGeneration = -1;

    public RbacPolicySource(Registry registry, Duration maxAge, InstantSource clock) {
        this.registry = requireNonNull(registry, "registry is null");
        this.maxAge = requireNonNull(maxAge, "maxAge is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** A source that rebuilds at most once a second unless invalidated. */
    public static RbacPolicySource of(Registry registry) {
        return new RbacPolicySource(registry, Duration.ofSeconds(1), InstantSource.system());
    }

    /** Marks the snapshot stale; the next read rebuilds it. */
    public void invalidate() {
        generation.incrementAndGet();
    }

    public PolicySnapshot snapshot() {
        PolicySnapshot current = snapshot;
        if (current != null && generation.get() == builtGeneration && !clock.instant().isAfter(builtAt.plus(maxAge))) {
            return current;
        }
        return rebuild();
    }

    private synchronized PolicySnapshot rebuild() {
        // Another thread may have rebuilt while this one waited for the lock.
        if (snapshot != null && generation.get() == builtGeneration && !clock.instant().isAfter(builtAt.plus(maxAge))) {
            return snapshot;
        }
        long startGeneration = generation.get();
        Instant start = clock.instant();
        // Read without copies (building a snapshot only reads the objects): a rebuild runs up to once a second while
        // requests come, and deep-copying every role and binding each time was garbage for nothing.
        PolicySnapshot built = PolicySnapshot.of(
                registry.require(CLUSTER_ROLES).listForReading(""),
                registry.require(ROLES).listForReading(""),
                registry.require(CLUSTER_ROLE_BINDINGS).listForReading(""),
                registry.require(ROLE_BINDINGS).listForReading(""));
        snapshot = built;
        builtAt = start;
        builtGeneration = startGeneration;
        return built;
    }
}
