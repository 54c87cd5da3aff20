package io.k4j.storage;

import static java.util.Objects.requireNonNull;

/**
 * Every failure the storage SPI reports. The set is closed so callers can switch over it exhaustively.
 */
public abstract sealed class StorageException extends RuntimeException {
    private StorageException(String message, Throwable cause) {
        super(message, cause);
    }

    /** Create found the key already present. */
    public static final class KeyExists extends StorageException {
        private final String key;

        public KeyExists(String key) {
            super("key exists: " + key, null);
            this.key = requireNonNull(key, "key is null");
        }

        public String key() {
            return key;
        }
    }

    /** Update or delete found no such key. */
    public static final class KeyNotFound extends StorageException {
        private final String key;

        public KeyNotFound(String key) {
            super("key not found: " + key, null);
            this.key = requireNonNull(key, "key is null");
        }

        public String key() {
            return key;
        }
    }

    /** Update or delete expected another mod revision; carries what is stored now. */
    public static final class Conflict extends StorageException {
        private final KeyValue current;

        public Conflict(KeyValue current) {
            super("conflict on " + current.key() + ": current mod revision is " + current.modRevision(), null);
            this.current = current;
        }

        public KeyValue current() {
            return current;
        }
    }

    /** The requested revision is older than the compacted revision. */
    public static final class Compacted extends StorageException {
        private final long requestedRevision;
        private final long compactedRevision;

        public Compacted(long requestedRevision, long compactedRevision) {
            super("required revision " + requestedRevision + " has been compacted (compacted revision " + compactedRevision + ")", null);
            this.requestedRevision = requestedRevision;
            this.compactedRevision = compactedRevision;
        }

        public long requestedRevision() {
            return requestedRevision;
        }

        public long compactedRevision() {
            return compactedRevision;
        }
    }

    /** The requested revision is newer than the store's current revision. */
    public static final class FutureRevision extends StorageException {
        public FutureRevision(long requestedRevision, long currentRevision) {
            super("required revision " + requestedRevision + " is a future revision (current revision " + currentRevision + ")", null);
        }
    }

    /** The value is larger than the backend accepts (etcd rejects requests over 1.5 MiB). */
    public static final class ValueTooLarge extends StorageException {
        public ValueTooLarge(String key, int size, int limit) {
            super("value of " + key + " is " + size + " bytes, over the limit of " + limit, null);
        }
    }

    /** The lease does not exist or has expired. */
    public static final class LeaseNotFound extends StorageException {
        public LeaseNotFound(long lease) {
            super("lease not found: " + lease, null);
        }
    }

    /** The backend cannot serve the request now (I/O failure, timeout, closed); retrying may succeed. */
    public static final class Unavailable extends StorageException implements Retriable {
        public Unavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Marker for failures that may succeed when retried. */
    public interface Retriable {}
}
