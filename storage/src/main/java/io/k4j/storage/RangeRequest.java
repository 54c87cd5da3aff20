package io.k4j.storage;

import static java.util.Objects.requireNonNull;

/**
 * A read of every key under {@code prefix}, in key order, starting at {@code startKey}.
 *
 * @param prefix only keys starting with this prefix are returned
 * @param startKey first key to return (inclusive); empty means the start of the prefix. Paging passes the
 *     last key of the previous page followed by {@code "\0"}.
 * @param limit maximum number of items, 0 for no limit; when the limit cuts the result {@link RangeResult#more()} is set
 * @param revision read the state as of this revision, 0 for the current revision; a revision below the
 *     compacted revision fails with {@link StorageException.Compacted}
 */
public record RangeRequest(String prefix, String startKey, long limit, long revision) {
    public RangeRequest {
        requireNonNull(prefix, "prefix is null");
        requireNonNull(startKey, "startKey is null");
        if (limit < 0) {
            throw new IllegalArgumentException("limit is negative: " + limit);
        }
        if (revision < 0) {
            throw new IllegalArgumentException("revision is negative: " + revision);
        }
        if (!startKey.isEmpty() && !startKey.startsWith(prefix)) {
            throw new IllegalArgumentException("startKey " + startKey + " is outside prefix " + prefix);
        }
    }

    /** Every key under the prefix at the current revision. */
    public static RangeRequest prefix(String prefix) {
        return new RangeRequest(prefix, "", 0, 0);
    }

    public RangeRequest withLimit(long newLimit) {
        return new RangeRequest(prefix, startKey, newLimit, revision);
    }

    public RangeRequest atRevision(long newRevision) {
        return new RangeRequest(prefix, startKey, limit, newRevision);
    }

    public RangeRequest startingAt(String newStartKey) {
        return new RangeRequest(prefix, newStartKey, limit, revision);
    }
}
