package io.k4j.storage.etcd;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.k4j.storage.StorageException;

/**
 * The apiserver's periodic etcd compaction, as upstream's {@code --etcd-compaction-interval} does it. etcd keeps every
 * revision of every key until someone compacts; without this its history grows until it reaches its space quota and
 * refuses writes, and each write costs etcd more as the history grows (docs/benchmarks.md, session 36).
 *
 * <p>Each turn compacts at the revision the previous turn saw, so at least one interval of history stays readable
 * for watches that resume and for list continuations. Several apiservers on one etcd share the work through the
 * version of one key, {@value #COMPACT_REVISION_KEY} (the key upstream uses, so k4j and kube-apiserver servers on one
 * etcd also share it): a turn first writes that key on the condition that its version is still the one this server
 * saw last. Only one server's write succeeds per interval; the others learn the new version and compact nothing.
 *
 * <p>Not thread-safe: {@link #compactOnce} runs one turn at a time.
 */
final class EtcdCompactor {
    static final String COMPACT_REVISION_KEY = "compact_rev_key";

    private static final Logger LOG = LoggerFactory.getLogger(EtcdCompactor.class);

    private final EtcdKeyValueStore store;
    /** The version of {@link #COMPACT_REVISION_KEY} this server last saw: 0 before any server's first turn. */
    private long seenVersion;
    /** Where the next won turn compacts: the revision at this server's previous turn, 0 before its first. */
    private long nextCompaction;

    EtcdCompactor(EtcdKeyValueStore store) {
        this.store = requireNonNull(store, "store is null");
    }

    /**
     * One turn.
     *
     * @return the revision compacted at, or 0 when this turn compacted nothing (this server's first turn, or another
     *     server took the interval's turn)
     */
    long compactOnce() {
        byte[] recorded = Long.toString(nextCompaction).getBytes(UTF_8);
        TxnResponse response = store.putIfVersion(COMPACT_REVISION_KEY, seenVersion, recorded);
        long current = response.getHeader().getRevision();
        if (!response.isSucceeded()) {
            GetResponse read = response.getGetResponses().getFirst();
            seenVersion = read.getKvs().isEmpty() ? 0 : read.getKvs().getFirst().getVersion();
            nextCompaction = current;
            LOG.debug("another server took this compaction turn; version of {} is now {}", COMPACT_REVISION_KEY, seenVersion);
            return 0;
        }
        seenVersion++;
        long target = nextCompaction;
        nextCompaction = current;
        if (target == 0) {
            return 0;
        }
        try {
            store.compact(target);
        }
        catch (StorageException.Compacted e) {
            // Someone compacted past this revision by hand: the history is already gone, as this turn wanted.
            LOG.debug("revision {} was already compacted: {}", target, e.getMessage());
            return 0;
        }
        LOG.debug("compacted etcd at revision {}", target);
        return target;
    }
}
