package io.k4j.storage;

import static java.util.Objects.requireNonNull;

/**
 * One stored key at one revision, with etcd's bookkeeping.
 *
 * @param key the full key, for example {@code /registry/pods/default/web-0}
 * @param value the stored bytes (the apiserver stores JSON); never modified after construction
 * @param createRevision the revision at which this key was created (since its last deletion)
 * @param modRevision the revision of the last write to this key; the apiserver's {@code resourceVersion}
 * @param version how many times the key was written since it was created, starting at 1
 * @param lease the lease the key is attached to, or {@link Lease#NONE}
 */
public record KeyValue(String key, byte[] value, long createRevision, long modRevision, long version, long lease) {
    public KeyValue {
        requireNonNull(key, "key is null");
        requireNonNull(value, "value is null");
    }
}
