package io.k4j.controllerkit.informers;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Capabilities;
import io.fabric8.kubernetes.api.model.ConfigMapKeySelector;
import io.fabric8.kubernetes.api.model.ConfigMapProjection;
import io.fabric8.kubernetes.api.model.ConfigMapVolumeSource;
import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.HostPathVolumeSource;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Lifecycle;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.ObjectFieldSelector;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimVolumeSource;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodDNSConfig;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.SecretKeySelector;
import io.fabric8.kubernetes.api.model.SecretProjection;
import io.fabric8.kubernetes.api.model.SecretVolumeSource;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.ServiceAccountTokenProjection;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * One shared instance per value of the model parts that many cached objects repeat, as far as a small table remembers
 * them. The pods of one template repeat their tolerations, ports, mounts, probes, security contexts and the parts of
 * the service account token's projected volume; the pods of one ReplicaSet their owner reference; the nodes of a pool
 * their taints and images. Each decoded object otherwise holds its own copies: sharing them saves a cached pod about 13
 * of the 100 objects and 450 of the 6,600 bytes it keeps alive (docs/benchmarks.md, session 31).
 *
 * <p>Only for the read-only objects of watch events ({@link EmptyCollections#WATCHED_OBJECTS}), which every component
 * of the process already shares (see {@link SharedEventDecoding}): a component that changes one copies it first. The
 * types are those whose values repeat; parts that hold a name or an address of their own (a container, a volume, a
 * status) would only cost a hash and a slot. Left out too: whatever can hold a {@code Quantity} (resources, an
 * emptyDir's size limit, a resourceFieldRef's divisor, so env vars and projected volumes), because fabric8 compares
 * quantities by their numbers: one pod's {@code 1000m} would become another's {@code 1}, and a Deployment's template
 * hash would change with it. A direct-mapped table as {@link io.k4j.api.codec.StringTable}: each slot, chosen by the
 * value's hash, holds the last value looked up there. Thread-safe.
 */
final class CanonicalValues {
    /** The model types whose values are shared. */
    static final Set<Class<?>> TYPES = Set.of(
            Affinity.class, Capabilities.class, ConfigMapKeySelector.class, ConfigMapProjection.class,
            ConfigMapVolumeSource.class, ContainerImage.class, ContainerPort.class, EnvFromSource.class,
            HostPathVolumeSource.class, KeyToPath.class, LabelSelector.class, Lifecycle.class,
            LocalObjectReference.class, ObjectFieldSelector.class, OwnerReference.class,
            PersistentVolumeClaimVolumeSource.class, PodCondition.class, PodDNSConfig.class, PodSecurityContext.class,
            Probe.class, SecretKeySelector.class, SecretProjection.class, SecretVolumeSource.class,
            SecurityContext.class, ServiceAccountTokenProjection.class, Taint.class, Toleration.class,
            TopologySpreadConstraint.class, VolumeMount.class);

    private final AtomicReferenceArray<Object> slots;

    /** @param slots the table's size, a power of two */
    CanonicalValues(int slots) {
        if (slots <= 0 || Integer.bitCount(slots) != 1) {
            throw new IllegalArgumentException("slots must be a power of two, not " + slots);
        }
        this.slots = new AtomicReferenceArray<>(slots);
    }

    /** The table's instance equal to {@code value} (which becomes it when the slot held another). */
    <T> T canonical(T value) {
        requireNonNull(value, "value is null");
        int hash = value.hashCode();
        int slot = (hash ^ (hash >>> 16)) & (slots.length() - 1);
        Object known = slots.get(slot);
        if (known != null && known.getClass() == value.getClass() && known.equals(value)) {
            @SuppressWarnings("unchecked")
            T shared = (T) known;
            return shared;
        }
        slots.set(slot, value);
        return value;
    }
}
