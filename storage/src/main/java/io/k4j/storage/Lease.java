package io.k4j.storage;

/** Lease identifiers; a key attached to a lease is deleted when the lease expires or is revoked. */
public final class Lease {
    /** The key is not attached to any lease. */
    public static final long NONE = 0;

    private Lease() {}
}
