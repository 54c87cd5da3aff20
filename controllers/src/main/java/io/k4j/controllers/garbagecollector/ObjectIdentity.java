package io.k4j.controllers.garbagecollector;

import static java.util.Objects.requireNonNull;

/**
 * Which object a graph node stands for, as upstream's {@code objectReference}: an owner reference's coordinates plus
 * the namespace. The uid tells two incarnations of the same name apart.
 *
 * @param namespace empty for cluster-scoped objects
 */
public record ObjectIdentity(String apiVersion, String kind, String namespace, String name, String uid) {
    public ObjectIdentity {
        requireNonNull(apiVersion, "apiVersion is null");
        requireNonNull(kind, "kind is null");
        requireNonNull(namespace, "namespace is null");
        requireNonNull(name, "name is null");
        requireNonNull(uid, "uid is null");
    }

    /** The API group of {@link #apiVersion}, empty for the core group. */
    public String group() {
        int slash = apiVersion.indexOf('/');
        return slash < 0 ? "" : apiVersion.substring(0, slash);
    }

    /** Same object kind and name (and so the same object for one uid), whatever the version it was named in. */
    boolean sameCoordinates(ObjectIdentity other) {
        return group().equals(other.group()) && kind.equals(other.kind) && namespace.equals(other.namespace) && name.equals(other.name);
    }

    @Override
    public String toString() {
        return "[" + apiVersion + "/" + kind + ", namespace: " + namespace + ", name: " + name + ", uid: " + uid + "]";
    }
}
