package io.k4j.apiserver.admission;

/** The operations admission sees, as upstream's {@code admission.Operation}. */
public enum Operation {
    CREATE,
    UPDATE,
    DELETE,
    CONNECT
}
