package io.k4j.apiserver.metrics;

import static java.util.Objects.requireNonNull;

import io.k4j.storage.KeyValue;
import io.k4j.storage.KeyValueStore;
import io.k4j.storage.RangeRequest;
import io.k4j.storage.RangeResult;
import io.k4j.storage.Watch;
import io.k4j.storage.WatchListener;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * A {@link KeyValueStore} that times each call into {@code etcd_request_duration_seconds} with the resource as
 * {@code type}, as upstream measures its storage calls per resource. Closing it does not close the delegate,
 * which resources share. Thread-safe.
 */
public final class InstrumentedKeyValueStore implements KeyValueStore {
    private final KeyValueStore delegate;
    private final ApiServerMetrics metrics;
    private final String type;

    public InstrumentedKeyValueStore(KeyValueStore delegate, ApiServerMetrics metrics, String type) {
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.metrics = requireNonNull(metrics, "metrics is null");
        this.type = requireNonNull(type, "type is null");
    }

    private <T> T timed(String operation, Supplier<T> call) {
        long start = System.nanoTime();
        try {
            return call.get();
        } finally {
            metrics.observeStorage(operation, type, System.nanoTime() - start);
        }
    }

    @Override
    public long currentRevision() {
        return delegate.currentRevision();
    }

    @Override
    public long compactedRevision() {
        return delegate.compactedRevision();
    }

    @Override
    public KeyValue get(String key) {
        return timed("get", () -> delegate.get(key));
    }

    @Override
    public RangeResult range(RangeRequest request) {
        return timed("list", () -> delegate.range(request));
    }

    @Override
    public long count(String prefix) {
        return timed("count", () -> delegate.count(prefix));
    }

    @Override
    public KeyValue create(String key, byte[] value, long lease) {
        return timed("create", () -> delegate.create(key, value, lease));
    }

    @Override
    public KeyValue update(String key, byte[] value, long expectedModRevision, long lease) {
        return timed("update", () -> delegate.update(key, value, expectedModRevision, lease));
    }

    @Override
    public KeyValue delete(String key, long expectedModRevision) {
        return timed("delete", () -> delegate.delete(key, expectedModRevision));
    }

    @Override
    public Watch watch(String prefix, long startRevision, WatchListener listener) {
        return delegate.watch(prefix, startRevision, listener);
    }

    @Override
    public void compact(long revision) {
        delegate.compact(revision);
    }

    @Override
    public long grantLease(Duration ttl) {
        return delegate.grantLease(ttl);
    }

    @Override
    public void keepAlive(long lease) {
        delegate.keepAlive(lease);
    }

    @Override
    public void revokeLease(long lease) {
        delegate.revokeLease(lease);
    }

    @Override
    public void close() {
        // The delegate is shared by every resource; its owner closes it.
    }
}
