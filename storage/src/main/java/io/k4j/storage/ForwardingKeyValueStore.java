package io.k4j.storage;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * A store that passes every call to another one, for decorators that change a few of them. Closing it leaves the
 * delegate open: a decorator is a view of a store that its owner closes. Thread-safe if the delegate is.
 */
public abstract class ForwardingKeyValueStore implements KeyValueStore {
    protected final KeyValueStore delegate;

    protected ForwardingKeyValueStore(KeyValueStore delegate) {
        this.delegate = requireNonNull(delegate, "delegate is null");
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
        return delegate.get(key);
    }

    @Override
    public RangeResult range(RangeRequest request) {
        return delegate.range(request);
    }

    @Override
    public long count(String prefix) {
        return delegate.count(prefix);
    }

    @Override
    public KeyValue create(String key, byte[] value, long lease) {
        return delegate.create(key, value, lease);
    }

    @Override
    public KeyValue update(String key, byte[] value, long expectedModRevision, long lease) {
        return delegate.update(key, value, expectedModRevision, lease);
    }

    @Override
    public KeyValue delete(String key, long expectedModRevision) {
        return delegate.delete(key, expectedModRevision);
    }

    @Override
    public Watch watch(String prefix, long startRevision, WatchListener listener) {
        return delegate.watch(prefix, startRevision, listener);
    }

    @Override
    public void requestWatchProgress() {
        delegate.requestWatchProgress();
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
        // The delegate's owner closes it.
    }
}
