package io.k4j.apiserver.authentication.serviceaccount;

import static java.util.Objects.requireNonNull;

/** A name and uid, as the {@code kubernetes.io} claim of a bound token records pods, secrets and nodes. */
public record ObjectReference(String name, String uid) {
    public ObjectReference {
        requireNonNull(name, "name is null");
        requireNonNull(uid, "uid is null");
    }
}
