package io.k4j.apiserver.metrics;

import static java.util.Objects.requireNonNull;

import io.k4j.storage.ForwardingKeyValueStore;
import io.k4j.storage.KeyValue;
import io.k4j.storage.KeyValueStore;
import io.k4j.storage.RangeRequest;
import io.k4j.storage.RangeResult;
import java.util.function.Supplier;

/**
 * A {@link KeyValueStore} that times each call into {@code etcd_request_duration_seconds} with the resource as
 * {@code type}, as upstream measures its storage calls per resource. Closing it does not close the delegate,
 * which resources share (see {@link ForwardingKeyValueStore}). Thread-safe.
 */
public final class InstrumentedKeyValueStore extends ForwardingKeyValueStore {
    private final ApiServerMetrics metrics;
    private final String type;

    public InstrumentedKeyValueStore(KeyValueStore delegate, ApiServerMetrics metrics, String type) {
        super(delegate);
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
}
