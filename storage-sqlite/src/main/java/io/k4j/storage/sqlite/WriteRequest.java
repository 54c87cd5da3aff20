package io.k4j.storage.sqlite;

import static java.util.Objects.requireNonNull;

/** The writes the {@link GroupCommitWriter} applies, one revision per changed key. */
sealed interface WriteRequest {
    record Create(String key, byte[] value, long lease) implements WriteRequest {
        public Create {
            requireNonNull(key, "key is null");
            requireNonNull(value, "value is null");
        }
    }

    record Update(String key, byte[] value, long expectedModRevision, long lease) implements WriteRequest {
        public Update {
            requireNonNull(key, "key is null");
            requireNonNull(value, "value is null");
        }
    }

    /** {@code expectedModRevision} 0 deletes unconditionally. */
    record Delete(String key, long expectedModRevision) implements WriteRequest {
        public Delete {
            requireNonNull(key, "key is null");
        }
    }

    record Compact(long revision) implements WriteRequest {}

    record GrantLease(long ttlMillis) implements WriteRequest {}

    /** {@code onlyIfExpired} is the reaper's form: a lease renewed since it was found expired survives. */
    record RevokeLease(long lease, boolean onlyIfExpired) implements WriteRequest {}

    /** Ends the writer thread after everything queued before it. */
    record Stop() implements WriteRequest {}

    /** Not a write: the sync thread tells a writer that waits for it that it is free (see {@code GroupCommitWriter}). */
    record SyncFree() implements WriteRequest {}
}
