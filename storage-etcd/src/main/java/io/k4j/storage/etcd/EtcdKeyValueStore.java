package io.k4j.storage.etcd;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.kv.DeleteResponse;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.PutResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.CompactOption;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.k4j.storage.KeyValue;
import io.k4j.storage.KeyValueStore;
import io.k4j.storage.Lease;
import io.k4j.storage.RangeRequest;
import io.k4j.storage.RangeResult;
import io.k4j.storage.StorageException;
import io.k4j.storage.Watch;
import io.k4j.storage.WatchListener;

/**
 * The storage SPI on a real etcd cluster, through jetcd. Every operation is one etcd request, so the semantics are
 * etcd's own: one global revision, guarded writes as transactions comparing the key's mod revision, reads at old
 * revisions until compaction, watches with previous values, leases.
 *
 * <p>Differences from an empty embedded store that callers may notice: a fresh etcd is at revision 1, not 0, so the
 * first write gets revision 2; and a request that times out ({@link StorageException.Unavailable}) may still have been
 * applied by etcd. While etcd is unreachable, requests wait for the connection to come back, up to the request
 * timeout.
 *
 * <p>Writes are durable when acknowledged: etcd replies only after a quorum has the entry in its fsynced WAL.
 *
 * <p>Thread-safe. Watch listeners run on one delivery thread per watch, never on jetcd's network threads, so a
 * listener may call back into the store.
 */
public final class EtcdKeyValueStore implements KeyValueStore {
    private static final Logger LOG = LoggerFactory.getLogger(EtcdKeyValueStore.class);

    /** etcd's default {@code --max-request-bytes} (1.5 MiB): larger requests are rejected by the server. */
    public static final int DEFAULT_MAX_REQUEST_BYTES = 1536 * 1024;

    /** How long one request may take before it fails with {@link StorageException.Unavailable}. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(15);

    /**
     * Room for what a write request carries besides the key and the value (the compare, the operation headers, the
     * raft request header), so that every value this store accepts also passes etcd's own size check.
     */
    static final int REQUEST_OVERHEAD_BYTES = 512;

    /** How often a write request names its key: the compare, the put and the read when the compare fails. */
    private static final int KEY_COPIES_PER_WRITE = 3;

    /**
     * How often the requests in flight are checked for their timeout, so a request fails up to this much late. A
     * timed wait per request would instead add and cancel a wake-up on the JDK's delay scheduler for every request,
     * which cost about a tenth of the server's CPU under load (docs/benchmarks.md, sessions 34 and 35).
     */
    private static final Duration DEADLINE_TICK = Duration.ofMillis(100);

    /** The smallest key; as a range end it means "to the end of the key space". */
    private static final ByteSequence ZERO_KEY = ByteSequence.from(new byte[] {0});

    private final Client client;
    /** jetcd's executor; jetcd shuts down only the pool it makes itself, so the store shuts this one down. */
    private final ExecutorService requestExecutor;
    private final KV kv;
    private final io.etcd.jetcd.Lease leases;
    private final io.etcd.jetcd.Watch watchClient;
    private final Duration requestTimeout;
    private final int maxRequestBytes;
    /** Runs the watches' retries, {@link #failLateRequests} and the periodic compaction's turns. */
    private final ScheduledExecutorService scheduler;
    /** The requests callers wait for, each with the {@link System#nanoTime} at which it times out. */
    private final Map<CompletableFuture<?>, Long> requestDeadlines = new ConcurrentHashMap<>();
    private final Set<EtcdWatch> watches = ConcurrentHashMap.newKeySet();
    private final AtomicLong knownCompactedRevision = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();

    private EtcdKeyValueStore(Client client, ExecutorService requestExecutor, Duration requestTimeout, int maxRequestBytes) {
        this.client = requireNonNull(client, "client is null");
        this.requestExecutor = requireNonNull(requestExecutor, "requestExecutor is null");
        this.requestTimeout = requireNonNull(requestTimeout, "requestTimeout is null");
        if (requestTimeout.isNegative() || requestTimeout.isZero()) {
            throw new IllegalArgumentException("requestTimeout must be positive: " + requestTimeout);
        }
        if (maxRequestBytes <= REQUEST_OVERHEAD_BYTES) {
            throw new IllegalArgumentException("maxRequestBytes is too small: " + maxRequestBytes);
        }
        this.maxRequestBytes = maxRequestBytes;
        this.kv = client.getKVClient();
        this.leases = client.getLeaseClient();
        this.watchClient = client.getWatchClient();
        this.scheduler = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform()
                .name("k4j-etcd-scheduler")
                .daemon(true)
                .factory());
        long tick = Math.min(DEADLINE_TICK.toNanos(), requestTimeout.toNanos());
        scheduler.scheduleWithFixedDelay(this::failLateRequests, tick, tick, NANOSECONDS);
    }

    /**
     * Connects to etcd and checks that it answers.
     *
     * @param endpoint {@code etcd://host:port[,host:port...]} (the k4j flag form) or {@code http://host:port[,...]}
     * @throws StorageException.Unavailable when etcd does not answer within the default request timeout
     */
    public static EtcdKeyValueStore connect(String endpoint) {
        return connect(endpoint, DEFAULT_REQUEST_TIMEOUT, DEFAULT_MAX_REQUEST_BYTES);
    }

    /**
     * Connects to etcd and checks that it answers.
     *
     * @param requestTimeout how long one request may take
     * @param maxRequestBytes the cluster's {@code --max-request-bytes}; larger writes fail with
     *     {@link StorageException.ValueTooLarge} before they are sent
     */
    public static EtcdKeyValueStore connect(String endpoint, Duration requestTimeout, int maxRequestBytes) {
        List<URI> urls = EtcdEndpoints.parse(endpoint);
        ExecutorService requestExecutor = CallerRunsCallbacks.requestExecutor();
        Client client = Client.builder()
                .endpoints(urls)
                // A range over many large values is far bigger than gRPC's 4 MiB default.
                .maxInboundMessageSize(Integer.MAX_VALUE)
                .connectTimeout(Duration.ofSeconds(5))
                .executorService(requestExecutor)
                .interceptor(CallerRunsCallbacks.repliesOnNetworkThread())
                .build();
        EtcdKeyValueStore store = new EtcdKeyValueStore(client, requestExecutor, requestTimeout, maxRequestBytes);
        try {
            store.currentRevision();
        }
        catch (RuntimeException e) {
            store.close();
            throw e;
        }
        return store;
    }

    @Override
    public long currentRevision() {
        ensureOpen();
        GetResponse response = await(kv.get(ZERO_KEY, GetOption.builder().withCountOnly(true).build()),
                "read of the current revision", failure -> null);
        return response.getHeader().getRevision();
    }

    /**
     * etcd has no request for its compacted revision, so this finds it: reads at a revision fail exactly when the
     * revision is below the compacted one, and the answer lies between the highest compaction this store has seen
     * and the current revision. That costs a binary search of cheap count-only reads.
     */
    @Override
    public long compactedRevision() {
        ensureOpen();
        long current = currentRevision();
        long low = Math.max(1, Math.min(knownCompactedRevision.get(), current));
        if (isReadable(low)) {
            return low == 1 ? 0 : low;
        }
        // Invariant: low is compacted away, high is readable.
        long high = current;
        while (high - low > 1) {
            long middle = low + (high - low) / 2;
            if (isReadable(middle)) {
                high = middle;
            }
            else {
                low = middle;
            }
        }
        knownCompactedRevision.accumulateAndGet(high, Math::max);
        return high;
    }

    private boolean isReadable(long revision) {
        try {
            await(kv.get(ZERO_KEY, GetOption.builder().withCountOnly(true).withRevision(revision).build()),
                    "read at revision " + revision,
                    failure -> EtcdErrors.isCompacted(failure) ? new StorageException.Compacted(revision, revision + 1) : null);
            return true;
        }
        catch (StorageException.Compacted e) {
            return false;
        }
    }

    @Override
    public KeyValue get(String key) {
        requireNonNull(key, "key is null");
        ensureOpen();
        GetResponse response = await(kv.get(bytes(key)), "get of " + key, failure -> null);
        return response.getKvs().isEmpty() ? null : toKeyValue(response.getKvs().getFirst());
    }

    @Override
    public RangeResult range(RangeRequest request) {
        requireNonNull(request, "request is null");
        ensureOpen();
        ByteSequence prefix = bytes(request.prefix());
        ByteSequence start;
        if (!request.startKey().isEmpty()) {
            start = bytes(request.startKey());
        }
        else {
            start = prefix.isEmpty() ? ZERO_KEY : prefix;
        }
        GetOption option = GetOption.builder()
                .withRange(prefixEnd(prefix))
                .withLimit(request.limit())
                .withRevision(request.revision())
                .build();
        GetResponse response = await(kv.get(start, option), "range over " + request.prefix(),
                failure -> revisionError(failure, request.revision(), request.revision() + 1));
        List<KeyValue> items = new ArrayList<>(response.getKvs().size());
        for (io.etcd.jetcd.KeyValue item : response.getKvs()) {
            items.add(toKeyValue(item));
        }
        long revision = request.revision() == 0 ? response.getHeader().getRevision() : request.revision();
        return new RangeResult(items, response.isMore(), response.getCount(), revision);
    }

    @Override
    public long count(String prefix) {
        requireNonNull(prefix, "prefix is null");
        ensureOpen();
        ByteSequence prefixBytes = bytes(prefix);
        GetOption option = GetOption.builder().withRange(prefixEnd(prefixBytes)).withCountOnly(true).build();
        GetResponse response = await(kv.get(prefixBytes.isEmpty() ? ZERO_KEY : prefixBytes, option),
                "count of " + prefix, failure -> null);
        return response.getCount();
    }

    @Override
    public KeyValue create(String key, byte[] value, long lease) {
        requireNonNull(key, "key is null");
        requireNonNull(value, "value is null");
        ensureOpen();
        checkSize(key, value);
        ByteSequence keyBytes = bytes(key);
        // No read on failure: KeyExists carries nothing but the key, so etcd need not send the value back.
        TxnResponse response = await(kv.txn()
                        .If(new Cmp(keyBytes, Cmp.Op.EQUAL, CmpTarget.modRevision(0)))
                        .Then(Op.put(keyBytes, ByteSequence.from(value), putOption(lease, false)))
                        .commit(),
                "create of " + key, failure -> writeError(failure, key, value, lease));
        if (!response.isSucceeded()) {
            throw new StorageException.KeyExists(key);
        }
        long revision = response.getHeader().getRevision();
        return new KeyValue(key, value.clone(), revision, revision, 1, lease);
    }

    @Override
    public KeyValue update(String key, byte[] value, long expectedModRevision, long lease) {
        requireNonNull(key, "key is null");
        requireNonNull(value, "value is null");
        if (expectedModRevision < 0) {
            throw new IllegalArgumentException("expectedModRevision is negative: " + expectedModRevision);
        }
        ensureOpen();
        checkSize(key, value);
        ByteSequence keyBytes = bytes(key);
        List<Cmp> conditions = new ArrayList<>(2);
        conditions.add(new Cmp(keyBytes, Cmp.Op.EQUAL, CmpTarget.modRevision(expectedModRevision)));
        if (expectedModRevision == 0) {
            // A missing key has mod revision 0: without this the update would create it.
            conditions.add(new Cmp(keyBytes, Cmp.Op.GREATER, CmpTarget.createRevision(0)));
        }
        TxnResponse response = await(kv.txn()
                        .If(conditions.toArray(Cmp[]::new))
                        .Then(Op.put(keyBytes, ByteSequence.from(value), putOption(lease, true)))
                        .Else(Op.get(keyBytes, GetOption.DEFAULT))
                        .commit(),
                "update of " + key, failure -> writeError(failure, key, value, lease));
        if (!response.isSucceeded()) {
            throw notFoundOrConflict(key, response.getGetResponses().getFirst());
        }
        long revision = response.getHeader().getRevision();
        PutResponse put = response.getPutResponses().getFirst();
        if (!put.hasPrevKv()) {
            // The compare guaranteed the key existed; without its previous state the answer would be made up.
            throw new IllegalStateException("etcd applied the update of " + key + " at revision " + revision
                    + " without returning the previous state");
        }
        io.etcd.jetcd.KeyValue previous = put.getPrevKv();
        return new KeyValue(key, value.clone(), previous.getCreateRevision(), revision, previous.getVersion() + 1, lease);
    }

    @Override
    public KeyValue delete(String key, long expectedModRevision) {
        requireNonNull(key, "key is null");
        if (expectedModRevision < 0) {
            throw new IllegalArgumentException("expectedModRevision is negative: " + expectedModRevision);
        }
        ensureOpen();
        ByteSequence keyBytes = bytes(key);
        DeleteOption withPrevious = DeleteOption.builder().withPrevKV(true).build();
        DeleteResponse deleted;
        if (expectedModRevision == 0) {
            deleted = await(kv.delete(keyBytes, withPrevious), "delete of " + key, failure -> null);
        }
        else {
            TxnResponse response = await(kv.txn()
                            .If(new Cmp(keyBytes, Cmp.Op.EQUAL, CmpTarget.modRevision(expectedModRevision)))
                            .Then(Op.delete(keyBytes, withPrevious))
                            .Else(Op.get(keyBytes, GetOption.DEFAULT))
                            .commit(),
                    "delete of " + key, failure -> null);
            if (!response.isSucceeded()) {
                throw notFoundOrConflict(key, response.getGetResponses().getFirst());
            }
            deleted = response.getDeleteResponses().getFirst();
        }
        if (deleted.getDeleted() == 0) {
            throw new StorageException.KeyNotFound(key);
        }
        return toKeyValue(deleted.getPrevKvs().getFirst());
    }

    /**
     * {@inheritDoc}
     *
     * <p>The watch survives etcd restarts and leader changes: when the stream breaks it is opened again from the
     * revision after the last delivered one, so no event is skipped or repeated. A start revision below the
     * compacted revision is reported through {@link WatchListener#onError}.
     */
    @Override
    public Watch watch(String prefix, long startRevision, WatchListener listener) {
        requireNonNull(prefix, "prefix is null");
        requireNonNull(listener, "listener is null");
        if (startRevision < 0) {
            throw new IllegalArgumentException("startRevision is negative: " + startRevision);
        }
        ensureOpen();
        // Resolve "from now" to a revision here, so a write that follows this call is always seen, and a resumed
        // stream knows exactly where to continue.
        long firstRevision = startRevision == 0 ? currentRevision() + 1 : startRevision;
        ByteSequence prefixBytes = bytes(prefix);
        EtcdWatch watch = new EtcdWatch(
                watchClient,
                prefix,
                prefixBytes.isEmpty() ? ZERO_KEY : prefixBytes,
                prefixEnd(prefixBytes),
                firstRevision,
                listener,
                scheduler,
                this::compactedRevisionAtLeast,
                watches::remove);
        watches.add(watch);
        watch.start();
        return watch;
    }

    @Override
    public void requestWatchProgress() {
        ensureOpen();
        // jetcd asks on each watcher's stream; etcd answers those whose watchers have sent everything up to now.
        watchClient.requestProgress();
    }

    private long compactedRevisionAtLeast(long atLeast) {
        try {
            return Math.max(atLeast, compactedRevision());
        }
        catch (StorageException e) {
            return atLeast;
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>As in etcd, compacting at or below the compacted revision fails with {@link StorageException.Compacted} and
     * compacting beyond the current revision with {@link StorageException.FutureRevision}.
     */
    @Override
    public void compact(long revision) {
        if (revision <= 0) {
            throw new IllegalArgumentException("revision must be positive: " + revision);
        }
        ensureOpen();
        await(kv.compact(revision, CompactOption.builder().withCompactPhysical(false).build()),
                "compaction at revision " + revision, failure -> revisionError(failure, revision, revision));
        knownCompactedRevision.accumulateAndGet(revision, Math::max);
    }

    /**
     * Compacts etcd every {@code interval} as the apiserver does, at the revision one interval back, taking turns with
     * the other servers on this etcd (see {@link EtcdCompactor}). The first compaction comes two intervals after
     * this call. A failed turn is logged and the next one tries again.
     */
    public void compactPeriodically(Duration interval) {
        requireNonNull(interval, "interval is null");
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("interval must be positive: " + interval);
        }
        ensureOpen();
        EtcdCompactor compactor = new EtcdCompactor(this);
        AtomicBoolean turnRunning = new AtomicBoolean();
        // The turn waits for etcd, so it runs off the scheduler thread, which must stay free to time requests out.
        scheduler.scheduleWithFixedDelay(() -> {
            if (turnRunning.compareAndSet(false, true)) {
                Thread.ofVirtual().name("k4j-etcd-compactor").start(() -> {
                    try {
                        compactor.compactOnce();
                    }
                    catch (StorageException e) {
                        if (!closed.get()) {
                            LOG.warn("etcd compaction failed, trying again in {}: {}", interval, e.getMessage());
                        }
                    }
                    finally {
                        turnRunning.set(false);
                    }
                });
            }
        }, interval.toNanos(), interval.toNanos(), NANOSECONDS);
    }

    /** Writes {@code value} at {@code key} if the key's version is {@code version} (0: the key is absent), else reads the key. */
    TxnResponse putIfVersion(String key, long version, byte[] value) {
        ensureOpen();
        ByteSequence keyBytes = bytes(key);
        return await(kv.txn()
                        .If(new Cmp(keyBytes, Cmp.Op.EQUAL, CmpTarget.version(version)))
                        .Then(Op.put(keyBytes, ByteSequence.from(value), PutOption.DEFAULT))
                        .Else(Op.get(keyBytes, GetOption.DEFAULT))
                        .commit(),
                "conditional write of " + key, failure -> null);
    }

    @Override
    public long grantLease(Duration ttl) {
        requireNonNull(ttl, "ttl is null");
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl must be positive: " + ttl);
        }
        ensureOpen();
        // etcd counts leases in whole seconds; round up so a key never expires before the asked TTL.
        long seconds = Math.max(1, (ttl.toMillis() + 999) / 1000);
        return await(leases.grant(seconds), "lease grant", failure -> null).getID();
    }

    @Override
    public void keepAlive(long lease) {
        ensureOpen();
        LeaseKeepAliveResponse response = await(leases.keepAliveOnce(lease), "keep-alive of lease " + lease,
                failure -> EtcdErrors.isLeaseNotFound(failure) ? new StorageException.LeaseNotFound(lease) : null);
        // etcd answers a keep-alive for an unknown lease with a TTL of 0 rather than an error.
        if (response.getTTL() <= 0) {
            throw new StorageException.LeaseNotFound(lease);
        }
    }

    @Override
    public void revokeLease(long lease) {
        ensureOpen();
        await(leases.revoke(lease), "revoke of lease " + lease,
                failure -> EtcdErrors.isLeaseNotFound(failure) ? new StorageException.LeaseNotFound(lease) : null);
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (EtcdWatch watch : List.copyOf(watches)) {
            watch.close();
        }
        scheduler.shutdownNow();
        // Before the client: a retry jetcd schedules while it closes is refused instead of sent on a closing channel.
        requestExecutor.shutdown();
        client.close();
    }

    private void ensureOpen() {
        if (closed.get()) {
            throw new StorageException.Unavailable("the etcd store is closed", null);
        }
    }

    private void checkSize(String key, byte[] value) {
        if (key.isEmpty()) {
            // etcd refuses empty keys; failing here keeps that programming error from looking like an outage.
            throw new IllegalArgumentException("key is empty");
        }
        long keyBytes = key.getBytes(UTF_8).length;
        long requestBytes = KEY_COPIES_PER_WRITE * keyBytes + value.length + REQUEST_OVERHEAD_BYTES;
        if (requestBytes > maxRequestBytes) {
            long limit = Math.max(0, maxRequestBytes - KEY_COPIES_PER_WRITE * keyBytes - REQUEST_OVERHEAD_BYTES);
            throw new StorageException.ValueTooLarge(key, value.length, (int) limit);
        }
    }

    private StorageException writeError(Throwable failure, String key, byte[] value, long lease) {
        if (EtcdErrors.isLeaseNotFound(failure)) {
            return new StorageException.LeaseNotFound(lease);
        }
        if (EtcdErrors.isRequestTooLarge(failure)) {
            return new StorageException.ValueTooLarge(key, value.length, maxRequestBytes);
        }
        return null;
    }

    /**
     * @param compactedAtLeast what the failure proves about the compacted revision: a read fails only below it,
     *     a compaction also at it
     */
    private StorageException revisionError(Throwable failure, long revision, long compactedAtLeast) {
        if (EtcdErrors.isCompacted(failure)) {
            return new StorageException.Compacted(revision, compactedRevisionAtLeast(compactedAtLeast));
        }
        if (EtcdErrors.isFutureRevision(failure)) {
            return new StorageException.FutureRevision(revision, currentRevision());
        }
        return null;
    }

    private static StorageException notFoundOrConflict(String key, GetResponse current) {
        if (current.getKvs().isEmpty()) {
            return new StorageException.KeyNotFound(key);
        }
        return new StorageException.Conflict(toKeyValue(current.getKvs().getFirst()));
    }

    /**
     * Waits for one etcd request. Failures that the operation recognises become its own {@link StorageException};
     * everything else (timeouts, lost connections, a closed client) becomes {@link StorageException.Unavailable}.
     */
    private <T> T await(CompletableFuture<T> request, String operation, Function<Throwable, StorageException> recognise) {
        requestDeadlines.put(request, System.nanoTime() + requestTimeout.toNanos());
        try {
            return request.get();
        }
        catch (InterruptedException e) {
            request.cancel(true);
            Thread.currentThread().interrupt();
            throw new StorageException.Unavailable("interrupted while waiting for etcd " + operation, e);
        }
        catch (ExecutionException e) {
            Throwable cause = EtcdErrors.unwrap(e);
            StorageException recognised = recognise.apply(cause);
            throw recognised != null ? recognised : EtcdErrors.unavailable(operation, cause);
        }
        finally {
            requestDeadlines.remove(request);
        }
    }

    /** Requests that callers are waiting for; each leaves this count when its caller stops waiting, however it ends. */
    int requestsInFlight() {
        return requestDeadlines.size();
    }

    /** Fails the requests in flight whose timeout has passed; their callers see {@link StorageException.Unavailable}. */
    private void failLateRequests() {
        long now = System.nanoTime();
        requestDeadlines.forEach((request, deadline) -> {
            if (now - deadline >= 0) {
                request.completeExceptionally(new TimeoutException("no answer from etcd within " + requestTimeout.toMillis() + " ms"));
            }
        });
    }

    private static PutOption putOption(long lease, boolean withPrevious) {
        PutOption.Builder option = PutOption.builder();
        if (lease != Lease.NONE) {
            option.withLeaseId(lease);
        }
        if (withPrevious) {
            option.withPrevKV();
        }
        return option.build();
    }

    static ByteSequence bytes(String text) {
        return ByteSequence.from(text, UTF_8);
    }

    static KeyValue toKeyValue(io.etcd.jetcd.KeyValue item) {
        return new KeyValue(
                item.getKey().toString(UTF_8),
                item.getValue().getBytes(),
                item.getCreateRevision(),
                item.getModRevision(),
                item.getVersion(),
                item.getLease());
    }

    /**
     * The end of the key range holding every key that starts with {@code prefix}: the prefix with its last byte
     * that is not 0xff incremented. An empty prefix (or one of only 0xff bytes) has no such key, and etcd spells
     * "to the end" as the zero byte.
     */
    static ByteSequence prefixEnd(ByteSequence prefix) {
        byte[] end = prefix.getBytes();
        for (int index = end.length - 1; index >= 0; index--) {
            if (end[index] != (byte) 0xff) {
                byte[] result = Arrays.copyOf(end, index + 1);
                result[index]++;
                return ByteSequence.from(result);
            }
        }
        return ZERO_KEY;
    }
}
